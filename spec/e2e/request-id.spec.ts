import { ask, mcpRig } from './mcp-gateway';
import { memoryLogger } from '../helpers/memory-logger';

const notes = { name: 'notes', match: { model: 'agent-*' }, hierarchy: ['clock_now'] };
const LOOP_ID = /^[0-9a-f]{16}$/;
const allow = { evaluate: async () => ({ action: 'allow' as const }) };

describe('request ids: x-agent-loop-id on every answer, the client x-request-id on every log line and turn', () => {
  const rig = mcpRig();

  async function gateway(script: Parameters<typeof rig.gateway>[0]) {
    const { logger, lines } = memoryLogger('info');
    const { client } = await rig.gateway(script, { bindings: [notes], logger, judge: allow, metrics: false });
    return { client, lines };
  }

  it('a JSON answer: the loop id in the header is the one on its log lines, each carrying the request id', async () => {
    const { client, lines } = await gateway([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'noon' }]);
    const { response } = await client.chat.completions
      .create(ask(), { headers: { 'x-request-id': 'req-7' } })
      .withResponse();
    const loopId = response.headers.get('x-agent-loop-id');
    expect(loopId).toMatch(LOOP_ID);

    const loopLines = lines.filter((line) => line.loopId !== undefined);
    expect(loopLines.map((line) => line.message)).toEqual([
      'agent-loop turn',
      'judge verdict',
      'judge verdict',
      'agent-loop tool call',
      'agent-loop turn',
      'agent-loop answered',
    ]);
    expect(loopLines.map((line) => [line.loopId, line.requestId])).toEqual(loopLines.map(() => [loopId, 'req-7']));
    expect(rig.model.requests.map((req) => req.headers['x-request-id'])).toEqual(['req-7', 'req-7']);
  });

  it('a streamed answer carries it too, set before the first byte', async () => {
    const { client } = await gateway([{ content: 'streamed' }]);
    const { data: stream, response } = await client.chat.completions.create({ ...ask(), stream: true }).withResponse();
    for await (const _chunk of stream);
    expect(response.headers.get('x-agent-loop-id')).toMatch(LOOP_ID);
  });

  it('so does a fall-through, whose log line names the loop and the request', async () => {
    const { client, lines } = await gateway([{ status: 500 }]);
    const failure = await client.chat.completions
      .create(ask(), { headers: { 'x-request-id': 'req-8' } })
      .catch((error: { status: number; headers: Headers }) => error);
    expect(failure).toMatchObject({ status: 500 });
    const loopId = (failure as { headers: Headers }).headers.get('x-agent-loop-id');
    expect(loopId).toMatch(LOOP_ID);
    expect(lines.find((line) => line.message === 'agent-loop fell through to the normal handler')).toMatchObject({
      loopId,
      requestId: 'req-8',
      binding: 'notes',
      reason: 'HTTP 500: scripted failure 500',
    });
  });

  it('logs no requestId when the client sent none', async () => {
    const { client, lines } = await gateway([{ content: 'hi' }]);
    await client.chat.completions.create(ask());
    expect(lines.filter((line) => line.loopId !== undefined).map((line) => 'requestId' in line)).toEqual([
      false,
      false,
    ]);
  });
});
