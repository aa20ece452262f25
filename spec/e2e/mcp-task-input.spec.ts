import type OpenAI from 'openai';
import { setTimeout as sleep } from 'node:timers/promises';
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { mcpRig } from './mcp-gateway';

type Message = OpenAI.Chat.ChatCompletionMessageParam;
const greeter = { name: 'greeter', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const askUser: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', description: 'Ask the user.', parameters: { type: 'object', properties: {} } },
};
const question: Message = { role: 'user', content: 'greet me' };
const asked = { model: 'agent-1', messages: [question], tools: [askUser] };

/** the client's follow-up: the handed-back message, then its one answer */
function answering(handed: OpenAI.Chat.ChatCompletion, answer: unknown): Message[] {
  const { message } = handed.choices[0];
  const [call] = message.tool_calls ?? [];
  return [question, message as Message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(answer) }];
}

describe('an MCP task that goes input_required asks the person, through the official openai client', () => {
  const rig = mcpRig();
  let tasks: McpTasksFixtureServer;
  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());

  const gateway = (binding: Record<string, unknown> = {}) =>
    rig.gateway([{ toolCalls: [{ name: 'ask_name' }] }, { content: 'Greeted.' }], {
      trellis: { mcp: { url: tasks.url } },
      bindings: [{ ...greeter, ...binding }],
    });
  const methods = () => tasks.requests.map((request) => request.method);

  it.each([false, true])(
    "hands the task's question to ask_user (stream: %s); the answer goes to tasks/update and the model reads the task's result",
    async (stream) => {
      const { client } = await gateway();
      const handed = stream
        ? await client.chat.completions.stream(asked).finalChatCompletion()
        : await client.chat.completions.create(asked);
      expect(handed.choices[0].finish_reason).toBe('tool_calls');
      const [call] = handed.choices[0].message.tool_calls ?? [];
      expect(call.type === 'function' && call.function.name).toBe('ask_user');
      expect(call.id).toMatch(/\.in1\./);
      expect(JSON.parse(call.type === 'function' ? call.function.arguments : '{}')).toEqual({
        tool: 'ask_name',
        message: 'Please enter your name.',
        mode: 'form',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      expect(methods()).toEqual(['tools/call', 'tasks/get']);

      const followUp = answering(handed, { action: 'accept', content: { name: 'Ada' } });
      const answer = await client.chat.completions.create({ ...asked, messages: followUp });
      expect(answer.choices[0].message.content).toBe('Greeted.');
      expect(rig.toolTexts(1)).toEqual(['Hello, Ada.']);
      expect(tasks.updates).toEqual([
        { taskId: tasks.requests[1].taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } },
      ]);
      expect(methods()).toEqual(['tools/call', 'tasks/get', 'tasks/update', 'tasks/get']);
    },
  );

  it.each([
    ['decline', "tool error: 'ask_name' needed input from the user, who declined"],
    ['cancel', "tool error: 'ask_name' needed input from the user, who cancelled"],
  ])('a person who answers %s: the model reads so, the task gets no answers and is cancelled', async (action, text) => {
    const { client } = await gateway();
    const handed = await client.chat.completions.create(asked);
    const taskId = tasks.requests[1].taskId;
    const answer = await client.chat.completions.create({ ...asked, messages: answering(handed, { action }) });
    expect(answer.choices[0].message.content).toBe('Greeted.');
    expect(rig.toolTexts(1)).toEqual([text]);
    expect(tasks.updates).toEqual([]);
    expect(tasks.cancelled).toEqual([taskId]);
    expect(tasks.requests.slice(2)).toEqual([{ method: 'tasks/cancel', taskId, at: expect.any(Number) }]);
  });

  it('an answer that does not fit the form: a tool error naming the field, and the task gets no answers', async () => {
    const { client } = await gateway();
    const handed = await client.chat.completions.create(asked);
    await client.chat.completions.create({ ...asked, messages: answering(handed, { action: 'accept', content: {} }) });
    expect(rig.toolTexts(1)).toEqual([
      "tool error: the user's answer to 'ask_name' does not fit its question: 'name' must have required property 'name'; the tool was not called with it",
    ]);
    expect(tasks.updates).toEqual([]);
  });

  it("the time the person takes does not count against the call's timeout", async () => {
    const { client } = await gateway({ toolTimeoutSec: 1 });
    const handed = await client.chat.completions.create(asked);
    await sleep(1500);
    const followUp = answering(handed, { action: 'accept', content: { name: 'Ada' } });
    await client.chat.completions.create({ ...asked, messages: followUp });
    expect(rig.toolTexts(1)).toEqual(['Hello, Ada.']);
    expect(tasks.cancelled).toEqual([]);
  });

  it('a task the server no longer has when the answer comes: the model reads a tool error naming it', async () => {
    const { client } = await gateway();
    const handed = await client.chat.completions.create(asked);
    const taskId = tasks.requests[1].taskId;
    tasks.forgetTasks();
    const followUp = answering(handed, { action: 'accept', content: { name: 'Ada' } });
    await client.chat.completions.create({ ...asked, messages: followUp });
    expect(rig.toolTexts(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^tool error: Trellis at .+ failed: task ${taskId} did not take the person's answers: unknown task$`,
        ),
      ),
    ]);
  });
});
