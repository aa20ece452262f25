import OpenAI from 'openai';
import { startResponsesServer, type ResponsesServer } from '../../../fixtures/responses-server';
import { ContextBudget } from '../../../lib/wire/kit/context-budget';
import { TurnBody } from '../../../lib/loop/turn-body';
import { localTrellis } from '../../../lib/trellis/local';
import { elision } from '../../../lib/wire/responses/elision';
import { buildGateway } from '../../helpers/gateway';
import { memoryLogger } from '../../helpers/memory-logger';
import { listen, type Listening } from '../../helpers/listen';

type Item = Record<string, unknown>;
const trellis = localTrellis([{ name: 'big', handler: (args) => 'x'.repeat(Number(args.bytes)) }]);
const binding = { name: 'big', match: { model: 'agent' }, hierarchy: 'big' };
const stats = () => ({ turns: 0, toolCalls: 0, blocked: 0, repeated: 0, elided: 0 });

describe('maxContextBytes on the Responses wire', () => {
  let model: ResponsesServer;
  let gateway: Listening;
  beforeEach(async () => {
    model = await startResponsesServer();
  });
  afterEach(async () => {
    await gateway.close();
    await model.close();
  });

  it("elides the loop's oldest function_call_output, never the latest turn's; every function_call keeps its answer", async () => {
    model.setScript([
      { calls: [{ callId: 'call_big1', name: 'big', arguments: { bytes: 6000 } }] },
      { calls: [{ callId: 'call_big2', name: 'big', arguments: { bytes: 6000 } }] },
      { text: 'Big.' },
    ]);
    gateway = await listen(buildGateway(model.url, { trellis, bindings: [binding], maxContextBytes: 10_000 }).app);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const { data, response } = await client.responses.create({ model: 'agent', input: 'how big?' }).withResponse();

    expect(data.output_text).toBe('Big.');
    expect(response.headers.get('x-agent-loop-elided')).toBe('1');
    const third = model.requests[2].body.input as Item[];
    expect(third.map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
    ]);
    expect(third[2]).toEqual({
      type: 'function_call_output',
      call_id: 'call_big1',
      output: "[earlier result of 'big' elided: 6000 bytes]",
    });
    expect(third[4]).toEqual({ type: 'function_call_output', call_id: 'call_big2', output: 'x'.repeat(6000) });
    expect(Buffer.byteLength(JSON.stringify(model.requests[2].body))).toBeLessThanOrEqual(10_000);
  });

  it("leaves the client's own function_call_output whole and warns once when the request still does not fit", () => {
    const { logger, lines } = memoryLogger('warn');
    const client: Item[] = [
      { type: 'function_call', call_id: 'call_c', name: 'lookup', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_c', output: 'c'.repeat(3000) },
    ];
    const own: Item[] = [
      { type: 'function_call', call_id: 'call_1', name: 'big', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'y'.repeat(3000) },
      { type: 'function_call', call_id: 'call_2', name: 'big', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_2', output: 'z'.repeat(3000) },
    ];
    const counted = stats();
    const budget = new ContextBudget(new TurnBody({ model: 'agent' }, 'input'), elision, 2048, client.length, counted, {
      logger,
      loopId: 'loop-1',
    });
    const items = [...client, ...own];
    const sent = JSON.parse(budget.request(items).json) as { input: Item[] };

    expect(sent.input.map((item) => item.output)).toEqual([
      undefined,
      'c'.repeat(3000),
      undefined,
      "[earlier result of 'big' elided: 3000 bytes]",
      undefined,
      'z'.repeat(3000),
    ]);
    expect(counted.elided).toBe(1);
    budget.request(items);
    expect(
      lines.filter(
        (line) => line.message === 'agent-loop context passes maxContextBytes with every earlier result elided',
      ),
    ).toEqual([expect.objectContaining({ level: 'warn', loopId: 'loop-1', wire: 'responses', maxContextBytes: 2048 })]);
  });
});
