import type OpenAI from 'openai';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { mcpRig } from './mcp-gateway';

type Message = OpenAI.Chat.ChatCompletionMessageParam;
const SECRET = 'a-fleet-secret-of-at-least-32-characters!';
const askUser: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', parameters: { type: 'object', properties: {} } },
};
const question: Message = { role: 'user', content: 'pay 5 EUR' };

describe("a tool's question answered on another replica of a fleet (one real redis-server)", () => {
  const rig = mcpRig();
  let v2: McpV2FixtureServer;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());
  beforeEach(async () => {
    v2 = await startMcpV2Server({ asks: true });
  });
  afterEach(() => v2.close());

  it('resumes the call on the replica the answer reaches, and refuses the same answer replayed on the first', async () => {
    const config = {
      trellis: { mcp: { url: v2.url } },
      bindings: [{ name: 'payments', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const }],
      internalSecret: SECRET,
      store: { url: redis.url },
    };
    const steps = [{ toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] }, { content: 'Paid.' }];
    const a = await rig.gateway(steps, config);
    const b = await rig.gateway(steps, config);
    const asked = { model: 'agent-1', messages: [question], tools: [askUser] };
    const handed = await a.client.chat.completions.create(asked);
    const { message } = handed.choices[0];
    const [call] = message.tool_calls ?? [];
    const followUp = {
      ...asked,
      messages: [
        question,
        message as Message,
        {
          role: 'tool' as const,
          tool_call_id: call.id,
          content: '{"action":"accept","content":{"confirm":true,"account":"main"}}',
        },
      ],
    };
    expect((await b.client.chat.completions.create(followUp)).choices[0].message.content).toBe('Paid.');
    await a.client.chat.completions.create(followUp);
    expect(rig.toolTexts(1)).toEqual(['paid 5 from main']);
    expect(rig.toolTexts(2)).toEqual([
      "tool error: the question of 'pay' was already answered; the call does not run again",
    ]);
    expect(v2.inputCalls).toHaveLength(2);
  });
});
