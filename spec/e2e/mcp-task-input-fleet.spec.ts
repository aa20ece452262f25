import type OpenAI from 'openai';
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { mcpRig } from './mcp-gateway';

type Message = OpenAI.Chat.ChatCompletionMessageParam;
const SECRET = 'a-fleet-secret-of-at-least-32-characters!';
const askUser: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', parameters: { type: 'object', properties: {} } },
};
const question: Message = { role: 'user', content: 'greet me' };

describe("a task's question answered on another replica of a fleet (one real redis-server)", () => {
  const rig = mcpRig();
  let tasks: McpTasksFixtureServer;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());
  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());

  it('the replica the answer reaches sends tasks/update for the task and polls it; a replay on the first is refused', async () => {
    const config = {
      trellis: { mcp: { url: tasks.url } },
      bindings: [{ name: 'greeter', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const }],
      internalSecret: SECRET,
      store: { url: redis.url },
    };
    const steps = [{ toolCalls: [{ name: 'ask_name' }] }, { content: 'Greeted.' }];
    const a = await rig.gateway(steps, config);
    const b = await rig.gateway(steps, config);
    const asked = { model: 'agent-1', messages: [question], tools: [askUser] };
    const handed = await a.client.chat.completions.create(asked);
    const { message } = handed.choices[0];
    const [call] = message.tool_calls ?? [];
    const answer = '{"action":"accept","content":{"name":"Ada"}}';
    const followUp = {
      ...asked,
      messages: [question, message as Message, { role: 'tool' as const, tool_call_id: call.id, content: answer }],
    };
    expect((await b.client.chat.completions.create(followUp)).choices[0].message.content).toBe('Greeted.');
    await a.client.chat.completions.create(followUp);
    expect(rig.toolTexts(1)).toEqual(['Hello, Ada.']);
    expect(rig.toolTexts(2)).toEqual([
      "tool error: the question of 'ask_name' was already answered; the call does not run again",
    ]);
    expect(tasks.updates.map((update) => update.taskId)).toEqual([tasks.requests[1].taskId]);
  });
});
