import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { ChildGateway, MB, SCENARIO_TIMEOUT_MS, figure, megabytes, post } from './harness';

const RESULT_BYTES = 50 * MB;
const MAX_TOOL_RESULT_BYTES = 65_536;

describe('reliability: a 50 MB tool result', () => {
  let model: ModelServer;
  let gateway: ChildGateway;

  beforeAll(async () => {
    model = await startModelServer((body) =>
      body.messages.some((m) => m.role === 'tool')
        ? { content: 'read it' }
        : { toolCalls: [{ id: 'big_1', name: 'big' }] },
    );
    gateway = await ChildGateway.start({
      upstream: model.url,
      bigResultBytes: RESULT_BYTES,
      maxToolResultBytes: MAX_TOOL_RESULT_BYTES,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  it(
    'the model sees maxToolResultBytes and the note; the gateway does not copy the 50 MB',
    async () => {
      await gateway.gc();
      const before = await gateway.resetPeaks();
      const exchange = await post(gateway.url, {
        model: 'loop-big',
        messages: [{ role: 'user', content: 'read the big file' }],
      });
      const after = await gateway.stats();
      expect(exchange.status).toBe(200);
      const seen = model.requests.at(-1)!.body.messages.find((m) => m.role === 'tool')?.content as string;
      const note = `\n[truncated: ${RESULT_BYTES - MAX_TOOL_RESULT_BYTES} of ${RESULT_BYTES} bytes cut]`;
      figure(
        `big-tool-result: a ${megabytes(RESULT_BYTES).slice(1)} result reached the model as ${seen.length - note.length} bytes + the note; ` +
          `peak rss during the loop ${megabytes(after.peakRss - before.rss)}`,
      );
      expect(seen).toBe('x'.repeat(MAX_TOOL_RESULT_BYTES) + note);
      expect(after.peakRss - before.rss).toBeLessThan(25 * MB);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
