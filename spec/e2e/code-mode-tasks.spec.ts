import type OpenAI from 'openai';
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { eventually } from '../trellis/helpers';
import { mcpRig } from './mcp-gateway';

type Message = OpenAI.Chat.ChatCompletionMessageParam;
const builds = {
  name: 'builds',
  match: { model: 'agent-*' },
  hierarchy: 'from-trellis' as const,
  // a loaded machine slows the polls: the program's own deadline is not what these specs test
  codeMode: { timeoutSec: 60 },
};
const askUser: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', description: 'Ask the user.', parameters: { type: 'object', properties: {} } },
};
const question: Message = { role: 'user', content: 'build and greet' };
const asked = { model: 'agent-1', messages: [question], tools: [askUser] };
const program = (code: string) => ({ toolCalls: [{ name: 'run_code', arguments: { code } }] });

describe('code mode: a nested call to an MCP task tool, through the official openai client', () => {
  const rig = mcpRig();
  let tasks: McpTasksFixtureServer;
  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());
  const methods = () => tasks.requests.map((request) => request.method);
  const gateway = (code: string, binding: Record<string, unknown> = {}) =>
    rig.gateway([program(code), { content: 'Done.' }], {
      trellis: { mcp: { url: tasks.url } },
      bindings: [{ ...builds, ...binding }],
    });

  it("waits for a long-running task, and the program reads the task's result", async () => {
    const { client } = await gateway(
      "const built = await tools.build_project({ project: 'web', steps: 3 });\nreturn { built };",
    );
    const answer = await client.chat.completions.create(asked);
    expect(answer.choices[0].message.content).toBe('Done.');
    expect(rig.toolTexts(1)).toEqual(['{"return":{"built":"built web"},"log":[]}']);
    expect(methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/get']);
  });

  it('throws a task past its timeout into the program as the readable timeout text, and cancels the task', async () => {
    const { client } = await gateway('try { await tools.endless_crawl({}); } catch (error) { return error.message; }', {
      toolTimeoutSec: 1,
    });
    await client.chat.completions.create(asked);
    expect(rig.toolTexts(1)).toEqual([`{"return":"tool error: 'endless_crawl' timed out after 1s","log":[]}`]);
    await eventually(() => expect(tasks.cancelled).toHaveLength(1));
  });

  it.each([false, true])(
    'a task that goes input_required asks the person (stream: %s); the answer goes to tasks/update and the program resumes from its log',
    async (stream) => {
      const { client } = await gateway(
        "const built = await tools.build_project({ project: 'api', steps: 1 });\nconst hello = await tools.ask_name({});\nreturn { built, hello };",
      );
      const handed = stream
        ? await client.chat.completions.stream(asked).finalChatCompletion()
        : await client.chat.completions.create(asked);
      const { message } = handed.choices[0];
      const [call] = message.tool_calls ?? [];
      expect(call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)]).toEqual([
        'ask_user',
        expect.objectContaining({ tool: 'ask_name', message: 'Please enter your name.' }),
      ]);
      const answered: Message[] = [
        question,
        message as Message,
        {
          role: 'tool',
          tool_call_id: call.id,
          content: JSON.stringify({ action: 'accept', content: { name: 'Ada' } }),
        },
      ];
      const answer = await client.chat.completions.create({ ...asked, messages: answered });
      expect(answer.choices[0].message.content).toBe('Done.');
      expect(rig.toolTexts(1)).toEqual(['{"return":{"built":"built api","hello":"Hello, Ada."},"log":[]}']);
      expect(tasks.updates).toEqual([
        { taskId: expect.any(String), inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } },
      ]);
      expect(methods().filter((method) => method === 'tools/call')).toHaveLength(2);
    },
  );
});
