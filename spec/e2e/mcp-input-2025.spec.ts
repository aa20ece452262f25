import type OpenAI from 'openai';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpRig } from './mcp-gateway';

type Message = OpenAI.Chat.ChatCompletionMessageParam;
const SECRET = 'a-fleet-secret-of-at-least-32-characters!';
const askUser: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', description: 'Ask the user.', parameters: { type: 'object', properties: {} } },
};
const question: Message = { role: 'user', content: 'pay 5 EUR' };
const asked = { model: 'agent-1', messages: [question], tools: [askUser] };
const form = { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] };

/** the client's follow-up: the handed-back message, then one answer per call, in order */
function answering(handed: OpenAI.Chat.ChatCompletion, ...answers: string[]): Message[] {
  const { message } = handed.choices[0];
  const calls = message.tool_calls ?? [];
  return [
    question,
    message as Message,
    ...calls.map((call, i): Message => ({ role: 'tool', tool_call_id: call.id, content: answers[i] })),
  ];
}

describe('a 2025 server that asks the person during a call (elicitation/create), over chat completions', () => {
  const rig = mcpRig();
  const config = {
    bindings: [{ name: 'old', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const }],
    internalSecret: SECRET,
  };
  const steps = [{ toolCalls: [{ name: 'pay_2025' }] }, { content: 'Paid.' }];
  /** what the server's elicitation was answered, in order */
  let answers: unknown[];

  beforeEach(() => {
    answers = [];
    rig.mcp.setTool({
      name: 'pay_2025',
      description: 'Pays, asking the person mid-call which account (2025).',
      handler: async (_args, extra) => {
        const answer = (await extra.sendRequest?.(
          { method: 'elicitation/create', params: { message: 'Pay 5 EUR from which account?', requestedSchema: form } },
          ElicitResultSchema,
        )) as { action: string; content?: { account?: string } };
        answers.push(answer);
        if (answer.action !== 'accept') return { content: [{ type: 'text', text: answer.action }], isError: true };
        return { content: [{ type: 'text', text: `paid 5 from ${answer.content?.account}` }] };
      },
    });
  });

  it.each([false, true])(
    'hands the question to ask_user (stream: %s); the answer reaches the waiting call, which runs once',
    async (stream) => {
      const { client } = await rig.gateway(steps, config);
      const handed = stream
        ? await client.chat.completions.stream(asked).finalChatCompletion()
        : await client.chat.completions.create(asked);
      expect(handed.choices[0].finish_reason).toBe('tool_calls');
      const [call] = handed.choices[0].message.tool_calls ?? [];
      expect(call.type === 'function' && call.function.name).toBe('ask_user');
      expect(JSON.parse(call.type === 'function' ? call.function.arguments : '{}')).toEqual({
        tool: 'pay_2025',
        message: 'Pay 5 EUR from which account?',
        mode: 'form',
        requestedSchema: form,
      });

      const answer = await client.chat.completions.create({
        ...asked,
        messages: answering(handed, JSON.stringify({ action: 'accept', content: { account: 'main' } })),
      });
      expect(answer.choices[0].message.content).toBe('Paid.');
      expect(rig.toolTexts(1)).toEqual(['paid 5 from main']);
      expect(answers).toEqual([{ action: 'accept', content: { account: 'main' } }]);
      expect(rig.mcp.calls.filter((c) => c.name === 'pay_2025')).toHaveLength(1);
    },
  );

  it('a call that asks again is asked again, each answer reaching the same waiting call', async () => {
    rig.mcp.setTool({
      name: 'pay_twice',
      description: 'Asks for the account, then for a confirmation (2025).',
      handler: async (_args, extra) => {
        const ask = async (message: string) =>
          (await extra.sendRequest?.(
            { method: 'elicitation/create', params: { message, requestedSchema: form } },
            ElicitResultSchema,
          )) as { content?: { account?: string } };
        const first = await ask('Which account?');
        const second = await ask(`Really ${first.content?.account}?`);
        return { content: [{ type: 'text', text: `paid from ${second.content?.account}` }] };
      },
    });
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'pay_twice' }] }, { content: 'Paid.' }], config);
    const accept = (account: string) => JSON.stringify({ action: 'accept', content: { account } });
    const first = await client.chat.completions.create(asked);
    const second = await client.chat.completions.create({ ...asked, messages: answering(first, accept('main')) });
    const [call] = second.choices[0].message.tool_calls ?? [];
    expect(call.type === 'function' && JSON.parse(call.function.arguments).message).toBe('Really main?');
    const messages = [...answering(first, accept('main')), ...answering(second, accept('main, yes')).slice(1)];
    const answer = await client.chat.completions.create({ ...asked, messages });
    expect(answer.choices[0].message.content).toBe('Paid.');
    expect(rig.toolTexts(1)).toEqual(['paid from main, yes']);
    expect(rig.mcp.calls.filter((c) => c.name === 'pay_twice')).toHaveLength(1);
  });

  it('a person who declines: the model reads so, and the tool is not called again', async () => {
    const { client } = await rig.gateway(steps, config);
    const handed = await client.chat.completions.create(asked);
    await client.chat.completions.create({ ...asked, messages: answering(handed, '{"action":"decline"}') });
    expect(rig.toolTexts(1)).toEqual(["tool error: 'pay_2025' needed input from the user, who declined"]);
    expect(rig.mcp.calls.filter((c) => c.name === 'pay_2025')).toHaveLength(1);
  });

  it('an answer that reaches another replica, where the call does not wait: a readable tool error, never a hang', async () => {
    const a = await rig.gateway(steps, config);
    const b = await rig.gateway(steps, config);
    const handed = await a.client.chat.completions.create(asked);
    const answer = await b.client.chat.completions.create({
      ...asked,
      messages: answering(handed, JSON.stringify({ action: 'accept', content: { account: 'main' } })),
    });
    expect(answer.choices[0].message.content).toBe('Paid.');
    expect(rig.toolTexts(1)).toEqual([
      "tool error: 'pay_2025' asked during its call, and that call is no longer waiting for the answer (it expired or ran on another replica)",
    ]);
    expect(answers).toEqual([]);
    expect(rig.mcp.calls.filter((c) => c.name === 'pay_2025')).toHaveLength(1);
  });

  it("a question while several calls are in flight on the session may be another call's: refused, readably", async () => {
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    rig.mcp.setTool({
      name: 'hold',
      description: 'Waits.',
      handler: async () => {
        await released;
        return { content: [{ type: 'text', text: 'held' }] };
      },
    });
    rig.mcp.setTool({
      name: 'confirm_beside',
      description: 'Asks while hold runs (2025).',
      handler: async (_args, extra) => {
        while (!rig.mcp.calls.some((c) => c.name === 'hold')) await new Promise((resolve) => setTimeout(resolve, 5));
        try {
          await extra.sendRequest?.(
            { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: form } },
            ElicitResultSchema,
          );
          return { content: [{ type: 'text', text: 'answered' }] };
        } catch (error) {
          return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
        } finally {
          release();
        }
      },
    });
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'hold' }, { name: 'confirm_beside' }] }, { content: 'ok' }],
      config,
    );
    await client.chat.completions.create(asked);
    const [held, confirm] = rig.toolTexts(1);
    expect(held).toBe('held');
    expect(confirm).toMatch(/only while that call is the only one in flight on the session/);
  });
});
