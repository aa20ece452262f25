import type OpenAI from 'openai';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Registry } from 'prom-client';
import { mcpRig } from './mcp-gateway';

type Message = OpenAI.Chat.ChatCompletionMessageParam;
const payments = { name: 'payments', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const askUser: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', description: 'Ask the user.', parameters: { type: 'object', properties: {} } },
};
const question: Message = { role: 'user', content: 'pay 5 EUR' };
const asked = { model: 'agent-1', messages: [question], tools: [askUser] };
const accept = (content: Record<string, unknown>) => JSON.stringify({ action: 'accept', content });

/** the client's follow-up: the handed-back message, then one answer per call, in order */
function answering(handed: OpenAI.Chat.ChatCompletion, earlier: Message[], ...answers: string[]): Message[] {
  const { message } = handed.choices[0];
  const calls = message.tool_calls ?? [];
  return [
    ...earlier,
    message as Message,
    ...calls.map((call, i): Message => ({ role: 'tool', tool_call_id: call.id, content: answers[i] })),
  ];
}

describe('a tool asks the person (MCP 2026-07-28 input_required) over chat completions (openai client, v2-SDK server)', () => {
  const rig = mcpRig();
  let v2: McpV2FixtureServer;
  beforeEach(async () => {
    v2 = await startMcpV2Server({ asks: true });
  });
  afterEach(() => v2.close());

  const gateway = (steps: Parameters<typeof rig.gateway>[0], extra: Record<string, unknown> = {}) =>
    rig.gateway(steps, {
      trellis: { mcp: { url: v2.url, roots: [{ uri: 'file:///srv/shop' }] } },
      bindings: [payments],
      ...extra,
    });
  const pays = [{ toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] }, { content: 'Paid.' }];

  it.each([false, true])(
    'hands the form to ask_user (stream: %s), calls the tool again with the answer and the state echoed, and answers once only',
    async (stream) => {
      const { client } = await gateway(pays);
      const { data: handed, response } = stream
        ? { data: await client.chat.completions.stream(asked).finalChatCompletion(), response: undefined }
        : await client.chat.completions.create(asked).withResponse();

      expect(response?.headers.get('x-agent-loop-stop') ?? 'input').toBe('input');
      expect(handed.choices[0].finish_reason).toBe('tool_calls');
      const [call] = handed.choices[0].message.tool_calls ?? [];
      expect(call.type === 'function' && call.function.name).toBe('ask_user');
      expect(call.id).toMatch(/\.in1\./);
      const shown = JSON.parse(call.type === 'function' ? call.function.arguments : '{}');
      expect(shown).toMatchObject({ tool: 'pay', message: 'Pay 5 EUR?', mode: 'form' });
      expect(Object.keys(shown.requestedSchema.properties)).toEqual(['confirm', 'account']);
      expect(JSON.stringify(rig.model.requests[0].body.tools)).not.toContain('ask_user');

      const followUp = answering(handed, [question], accept({ confirm: true, account: 'main' }));
      const answer = await client.chat.completions.create({ ...asked, messages: followUp });
      expect(answer.choices[0].message.content).toBe('Paid.');
      expect(rig.toolTexts(1)).toEqual(['paid 5 from main']);
      expect(v2.inputCalls.map(({ inputResponses, requestState }) => [inputResponses, requestState])).toEqual([
        [undefined, undefined],
        [{ confirm: { action: 'accept', content: { confirm: true, account: 'main' } } }, 'pay:5'],
      ]);

      await client.chat.completions.create({ ...asked, messages: followUp });
      expect(rig.toolTexts(2)).toEqual([
        "tool error: the question of 'pay' was already answered; the call does not run again",
      ]);
      expect(v2.inputCalls).toHaveLength(2);
    },
  );

  it.each([
    ['decline', "tool error: 'pay' needed input from the user, who declined"],
    ['cancel', "tool error: 'pay' needed input from the user, who cancelled"],
  ])('a person who answers %s: the model reads so and the tool is not called again', async (action, text) => {
    const { client } = await gateway(pays);
    const handed = await client.chat.completions.create(asked);
    await client.chat.completions.create({
      ...asked,
      messages: answering(handed, [question], JSON.stringify({ action })),
    });
    expect(rig.toolTexts(1)).toEqual([text]);
    expect(v2.inputCalls).toHaveLength(1);
  });

  it('an answer that does not fit the form: a tool error naming the field, the tool not called with it', async () => {
    const { client } = await gateway(pays);
    const handed = await client.chat.completions.create(asked);
    await client.chat.completions.create({
      ...asked,
      messages: answering(handed, [question], accept({ confirm: true })),
    });
    expect(rig.toolTexts(1)).toEqual([
      "tool error: the user's answer to 'pay' does not fit its question: 'account' must have required property 'account'; the tool was not called with it",
    ]);
    expect(v2.inputCalls).toHaveLength(1);
  });

  it('a client that declared no input tool: the model reads that it cannot be asked', async () => {
    const { client } = await gateway(pays);
    const answer = await client.chat.completions.create({ model: 'agent-1', messages: [question] });
    expect(answer.choices[0].message.content).toBe('Paid.');
    expect(rig.toolTexts(1)).toEqual(["tool error: 'pay' needs input from the user, which this client cannot give"]);
  });

  it('a tampered question (its sealed state changed) is not one this gateway asked: the tool does not run again', async () => {
    const { client } = await gateway(pays);
    const handed = await client.chat.completions.create(asked);
    const [call] = handed.choices[0].message.tool_calls ?? [];
    const at = call.id.indexOf('.in1.') + 12;
    const tampered = `${call.id.slice(0, at)}${call.id[at] === 'A' ? 'B' : 'A'}${call.id.slice(at + 1)}`;
    const message = { ...handed.choices[0].message, tool_calls: [{ ...call, id: tampered }] };
    await client.chat.completions.create({
      ...asked,
      messages: [
        question,
        message as Message,
        { role: 'tool', tool_call_id: tampered, content: accept({ confirm: true, account: 'x' }) },
      ],
    });
    expect(rig.toolTexts(1)).toEqual([
      "tool error: the question of 'pay' is not one this gateway asked; the call did not run",
    ]);
    expect(v2.inputCalls).toHaveLength(1);
  });

  it('a page to visit: https is offered as a URL question; plain http on another host is refused', async () => {
    const { client } = await gateway([
      { toolCalls: [{ name: 'open_page' }, { name: 'open_http_page' }] },
      { content: 'ok' },
    ]);
    const handed = await client.chat.completions.create(asked);
    const calls = handed.choices[0].message.tool_calls ?? [];
    expect(calls.map((call) => call.type === 'function' && JSON.parse(call.function.arguments))).toEqual([
      { tool: 'open_page', message: 'Finish on the page', mode: 'url', url: 'https://pay.example.com/finish?id=7' },
    ]);
    await client.chat.completions.create({ ...asked, messages: answering(handed, [question], '{"action":"accept"}') });
    // the refusal answered its call at once; the answered one follows, as an approved call does
    expect(rig.toolTexts(1)).toEqual([
      `tool error: 'open_http_page' asked to send the user to "http://pay.example.com/finish", which is not https; the user was not asked`,
      'the person finished on the page',
    ]);
  });

  it('a call the person approved whose tool then asks: its questions are handed back, then its result', async () => {
    const approve: OpenAI.Chat.ChatCompletionTool = {
      type: 'function',
      function: { name: 'approve_tool_call', parameters: { type: 'object' } },
    };
    const { client } = await gateway([{ toolCalls: [{ name: 'profile' }] }, { content: 'ok' }], {
      bindings: [{ ...payments, requireApproval: 'always' }],
    });
    const request = { ...asked, tools: [askUser, approve] };
    const handed = await client.chat.completions.create(request);
    expect(handed.choices[0].message.tool_calls?.map((call) => call.type === 'function' && call.function.name)).toEqual(
      ['approve_tool_call'],
    );
    const first = answering(handed, [question], '{"approved":true}');
    const again = await client.chat.completions.create({ ...request, messages: first });
    const calls = again.choices[0].message.tool_calls ?? [];
    expect(calls.map((call) => call.type === 'function' && JSON.parse(call.function.arguments).message)).toEqual([
      'Your name?',
      'Your colour?',
    ]);
    await client.chat.completions.create({
      ...request,
      messages: answering(again, first, accept({ name: 'Ann' }), accept({ color: 'green' })),
    });
    expect(rig.toolTexts(1)).toEqual(['Ann likes green']);
  });

  it('several questions in one result are asked together, one ask_user call each', async () => {
    const { client } = await gateway([{ toolCalls: [{ name: 'profile' }] }, { content: 'ok' }]);
    const handed = await client.chat.completions.create(asked);
    const calls = handed.choices[0].message.tool_calls ?? [];
    expect(calls.map((call) => call.type === 'function' && JSON.parse(call.function.arguments).message)).toEqual([
      'Your name?',
      'Your colour?',
    ]);
    await client.chat.completions.create({
      ...asked,
      messages: answering(handed, [question], accept({ name: 'Ann' }), accept({ color: 'green' })),
    });
    expect(rig.toolTexts(1)).toEqual(['Ann likes green']);
  });

  it('a tool that asks again is asked again, at once, up to input.maxRounds', async () => {
    const { client } = await gateway([{ toolCalls: [{ name: 'two_steps' }] }, { content: 'ok' }]);
    const first = await client.chat.completions.create(asked);
    const afterFirst = answering(first, [question], accept({ word: 'a' }));
    const { data: second, response } = await client.chat.completions
      .create({ ...asked, messages: afterFirst })
      .withResponse();
    expect(response.headers.get('x-agent-loop-stop')).toBe('input');
    const [call] = second.choices[0].message.tool_calls ?? [];
    expect(call.type === 'function' && JSON.parse(call.function.arguments).message).toBe('Second word?');
    expect(rig.model.requests).toHaveLength(1);
    await client.chat.completions.create({ ...asked, messages: answering(second, afterFirst, accept({ word: 'b' })) });
    expect(rig.toolTexts(1)).toEqual(['a then b']);
    expect(v2.inputCalls.map((one) => one.requestState)).toEqual([undefined, 'start', 'first=a']);

    const capped = await gateway([{ toolCalls: [{ name: 'two_steps' }] }, { content: 'ok' }], {
      input: { maxRounds: 1 },
    });
    const once = await capped.client.chat.completions.create(asked);
    await capped.client.chat.completions.create({
      ...asked,
      messages: answering(once, [question], accept({ word: 'a' })),
    });
    expect(rig.toolTexts(3)).toEqual([
      "tool error: 'two_steps' asked the user for input more than 1 times (input.maxRounds); the call did not finish",
    ]);
  });

  it('roots are answered from trellis.mcp.roots without asking; a password form and sampling are refused', async () => {
    const { client } = await gateway([
      { toolCalls: [{ name: 'list_roots' }, { name: 'login' }, { name: 'summarize' }] },
      { content: 'ok' },
    ]);
    const answer = await client.chat.completions.create(asked);
    expect(answer.choices[0].message.content).toBe('ok');
    const [roots, login, summarize] = rig.toolTexts(1);
    expect(roots).toBe('roots: file:///srv/shop');
    expect(login).toBe(
      "tool error: 'login' asked the user for a password, secret or token in a form ('password'), which MCP forbids; the user was not asked",
    );
    expect(summarize).toMatch(/^tool error: .*sampling\/createMessage/);
  });

  it('sends the Mcp-Param-* headers a tool declares (SEP-2243)', async () => {
    const { client } = await gateway([
      { toolCalls: [{ name: 'region_lookup', arguments: { region: 'eu-west' } }] },
      { content: 'ok' },
    ]);
    await client.chat.completions.create(asked);
    expect(rig.toolTexts(1)).toEqual(['region eu-west']);
    expect(v2.inputCalls).toEqual([{ name: 'region_lookup', args: { region: 'eu-west' }, regionHeader: 'eu-west' }]);
  });

  it('a 2025 server asking for its roots during a call is answered from trellis.mcp.roots', async () => {
    rig.mcp.setTool({
      name: 'old_roots',
      description: 'Asks for the roots mid-call (2025).',
      handler: async (_args, extra) => {
        const listed = (await extra.sendRequest?.({ method: 'roots/list' }, ListRootsResultSchema)) as {
          roots: { uri: string }[];
        };
        return { content: [{ type: 'text', text: listed.roots.map((root) => root.uri).join(', ') }] };
      },
    });
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'old_roots' }] }, { content: 'ok' }], {
      trellis: { mcp: { url: rig.mcp.url, roots: [{ uri: 'file:///srv/old' }] } },
      bindings: [{ name: 'old', match: { model: 'agent-*' }, hierarchy: ['old_roots'] }],
    });
    await client.chat.completions.create(asked);
    expect(rig.toolTexts(1)).toEqual(['file:///srv/old']);
  });

  it('a tool that asks again beside calls already answered: one answer each, and the questions counted by outcome', async () => {
    const registry = new Registry();
    const { client } = await gateway([{ toolCalls: [{ name: 'profile' }, { name: 'two_steps' }] }, { content: 'ok' }], {
      metrics: { registry },
    });
    const handed = await client.chat.completions.create(asked);
    const first = answering(
      handed,
      [question],
      accept({ name: 'Ann' }),
      accept({ color: 'red' }),
      accept({ word: 'x' }),
    );
    const again = await client.chat.completions.create({ ...asked, messages: first });
    await client.chat.completions.create({ ...asked, messages: answering(again, first, accept({ word: 'y' })) });
    const [, sent] = rig.model.requests;
    expect(sent.body.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'Ann likes red',
      'x then y',
    ]);
    const counted = (await registry.getSingleMetric('agent_loop_input_questions_total')!.get()).values.map(
      ({ labels, value }) => [labels.outcome, value],
    );
    expect(counted).toEqual([
      ['asked', 4],
      ['answered', 4],
    ]);
  });
});
