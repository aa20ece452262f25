import OpenAI from 'openai';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { startResponsesServer, type ResponsesServer } from '../../fixtures/responses-server';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

type Item = Record<string, unknown>;
const payments = { name: 'payments', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const askUser = {
  type: 'function' as const,
  name: 'ask_user',
  parameters: { type: 'object', properties: {} },
  strict: false,
};
const input = [{ role: 'user' as const, content: 'pay 5 EUR' }];
const accept = (content: Record<string, unknown>) => JSON.stringify({ action: 'accept', content });

describe('a tool asks the person over OpenAI Responses: a function_call of ask_user out, its function_call_output in', () => {
  let v2: McpV2FixtureServer;
  let model: ResponsesServer;
  let gateway: Listening;
  let client: OpenAI;
  let closeLoop: () => Promise<unknown>;
  beforeEach(async () => {
    v2 = await startMcpV2Server({ asks: true });
    model = await startResponsesServer();
    model.setScript([{ calls: [{ callId: 'c_pay', name: 'pay', arguments: { amount: 5 } }] }, { text: 'Paid.' }]);
    const built = buildGateway(model.url, { trellis: { mcp: { url: v2.url } }, bindings: [payments] });
    closeLoop = () => built.loop.close();
    gateway = await listen(built.app);
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0 });
  });
  afterEach(async () => {
    await gateway.close();
    await closeLoop();
    await model.close();
    await v2.close();
  });

  it.each([false, true])('asks the form, then calls the tool again with the answer (stream: %s)', async (stream) => {
    const asked = { model: 'agent-1', input, tools: [askUser] };
    const first = stream ? await client.responses.stream(asked).finalResponse() : await client.responses.create(asked);
    const call = first.output.find(
      (item) => item.type === 'function_call',
    ) as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.name).toBe('ask_user');
    expect(call.call_id).toMatch(/^c_pay\.in1\./);
    expect(JSON.parse(call.arguments)).toMatchObject({ tool: 'pay', message: 'Pay 5 EUR?', mode: 'form' });
    expect(JSON.stringify(model.requests[0].body.tools)).not.toContain('ask_user');

    const answer = await client.responses.create({
      ...asked,
      input: [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: accept({ confirm: true, account: 'main' }) },
      ],
    });
    expect(answer.output_text).toBe('Paid.');
    const sent = model.requests[1].body.input as Item[];
    expect(
      sent.filter((item) => item.type === 'function_call_output').map((item) => [item.call_id, item.output]),
    ).toEqual([['c_pay', 'paid 5 from main']]);
    expect(v2.inputCalls.map((one) => one.requestState)).toEqual([undefined, 'pay:5']);
  });

  it('a client that declared no input tool: the model reads that it cannot be asked', async () => {
    const answer = await client.responses.create({ model: 'agent-1', input });
    expect(answer.output_text).toBe('Paid.');
    const sent = model.requests[1].body.input as Item[];
    expect(sent.filter((item) => item.type === 'function_call_output').map((item) => item.output)).toEqual([
      "tool error: 'pay' needs input from the user, which this client cannot give",
    ]);
  });
});
