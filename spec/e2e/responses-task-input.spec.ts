import OpenAI from 'openai';
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { startResponsesServer, type ResponsesServer } from '../../fixtures/responses-server';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

type Item = Record<string, unknown>;
const greeter = { name: 'greeter', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const askUser = {
  type: 'function' as const,
  name: 'ask_user',
  parameters: { type: 'object', properties: {} },
  strict: false,
};
const input = [{ role: 'user' as const, content: 'greet me' }];

describe('an MCP task that asks the person over OpenAI Responses (openai client, tasks server)', () => {
  let tasks: McpTasksFixtureServer;
  let model: ResponsesServer;
  let gateway: Listening;
  let client: OpenAI;
  let closeLoop: () => Promise<unknown>;
  beforeEach(async () => {
    tasks = await startMcpTasksServer();
    model = await startResponsesServer();
    model.setScript([{ calls: [{ callId: 'c_name', name: 'ask_name', arguments: {} }] }, { text: 'Greeted.' }]);
    const built = buildGateway(model.url, { trellis: { mcp: { url: tasks.url } }, bindings: [greeter] });
    closeLoop = () => built.loop.close();
    gateway = await listen(built.app);
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0 });
  });
  afterEach(async () => {
    await gateway.close();
    await closeLoop();
    await model.close();
    await tasks.close();
  });

  it.each([false, true])(
    'hands the question out as a function_call; its output resumes the task (stream: %s)',
    async (stream) => {
      const asked = { model: 'agent-1', input, tools: [askUser] };
      const first = stream
        ? await client.responses.stream(asked).finalResponse()
        : await client.responses.create(asked);
      const call = first.output.find(
        (item) => item.type === 'function_call',
      ) as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call.name).toBe('ask_user');
      expect(call.call_id).toMatch(/^c_name\.in1\./);
      expect(JSON.parse(call.arguments)).toMatchObject({ tool: 'ask_name', message: 'Please enter your name.' });

      const output = JSON.stringify({ action: 'accept', content: { name: 'Linus' } });
      const answer = await client.responses.create({
        ...asked,
        input: [
          ...input,
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: 'function_call_output', call_id: call.call_id, output },
        ],
      });
      expect(answer.output_text).toBe('Greeted.');
      const sent = model.requests[1].body.input as Item[];
      expect(
        sent.filter((item) => item.type === 'function_call_output').map((item) => [item.call_id, item.output]),
      ).toEqual([['c_name', 'Hello, Linus.']]);
      expect(tasks.updates).toHaveLength(1);
    },
  );
});
