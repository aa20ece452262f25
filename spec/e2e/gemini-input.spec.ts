import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import type { GeminiStep } from '../../fixtures/gemini-server';
import { geminiRig, type GeminiGateway } from './gemini-gateway';

const model = 'gemini-2.5-flash';
const payments = { name: 'payments', match: { model: 'gemini-*' }, hierarchy: 'from-trellis' as const };
const tools = [
  {
    functionDeclarations: [
      { name: 'ask_user', description: 'Ask the user.', parametersJsonSchema: { type: 'object', properties: {} } },
      { name: 'approve_tool_call', description: 'Approve a call.', parametersJsonSchema: { type: 'object' } },
    ],
  },
];
const question: GenAI.Content = { role: 'user', parts: [{ text: 'pay 5 EUR' }] };
const pays: GeminiStep[] = [{ calls: [{ name: 'pay', args: { amount: 5 } }] }, { text: 'Paid.' }];
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

interface Asked {
  content: GenAI.Content;
  calls: GenAI.FunctionCall[];
  stop?: string | null;
}

/** The client's follow-up: the handed-back content, then one functionResponse per call, in order, `output` the answer. */
function answering(handed: Asked, earlier: GenAI.Content[], ...answers: unknown[]): GenAI.Content[] {
  const parts = handed.calls.map((call, i) => ({
    functionResponse: { id: call.id, name: call.name, response: { output: answers[i] } },
  }));
  return [...earlier, handed.content, { role: 'user', parts }];
}

describe('a tool asks the person over Gemini: a functionCall of ask_user out, its functionResponse in (@google/genai, v2-SDK server)', () => {
  const rig = geminiRig();
  let v2: McpV2FixtureServer;
  beforeEach(async () => {
    v2 = await startMcpV2Server({ asks: true });
  });
  afterEach(() => v2.close());
  const gateway = (steps: GeminiStep[], binding: Record<string, unknown> = {}): Promise<GeminiGateway> =>
    rig.gateway(steps, { trellis: { mcp: { url: v2.url } }, bindings: [{ ...payments, ...binding }] });

  /** generateContent (JSON) or generateContentStream (SSE): the parts the client gets, as one model content */
  async function ask(gw: GeminiGateway, stream: boolean, contents: GenAI.Content[]): Promise<Asked> {
    const responses = stream
      ? await (async () => {
          const chunks: GenAI.GenerateContentResponse[] = [];
          for await (const chunk of await gw.genai.models.generateContentStream({ model, contents, config: { tools } }))
            chunks.push(chunk);
          return chunks;
        })()
      : [await gw.genai.models.generateContent({ model, contents, config: { tools } })];
    const parts = responses.flatMap((response) => response.candidates?.[0]?.content?.parts ?? []);
    const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    const stop = stream ? null : responses[0].sdkHttpResponse?.headers?.['x-agent-loop-stop'];
    return { content: { role: 'model', parts }, calls, stop };
  }
  const lastParts = (index: number) => rig.lastParts(index);

  it.each([false, true])(
    'hands the form to ask_user (stream: %s), calls the tool again with the answer and the state echoed',
    async (stream) => {
      const gw = await gateway(pays);
      const handed = await ask(gw, stream, [question]);
      expect(handed.stop).toBe(stream ? null : 'input');
      expect(handed.calls).toHaveLength(1);
      const [call] = handed.calls;
      expect(call.name).toBe('ask_user');
      expect(call.id).toMatch(/\.in1\./);
      expect(call.args).toMatchObject({ tool: 'pay', message: 'Pay 5 EUR?', mode: 'form' });
      expect(Object.keys((call.args?.requestedSchema as { properties: object }).properties)).toEqual([
        'confirm',
        'account',
      ]);
      expect(JSON.stringify(rig.upstream.requests[0].body.tools)).not.toContain('ask_user');

      const answer = await ask(gw, stream, answering(handed, [question], accept({ confirm: true, account: 'main' })));
      expect(answer.content.parts?.map((part) => part.text).join('')).toBe('Paid.');
      expect(answer.calls).toEqual([]);
      expect(rig.upstream.requests).toHaveLength(2);
      expect(rig.upstream.requests[1].refused).toBeUndefined();
      expect(lastParts(1)).toEqual([{ functionResponse: { name: 'pay', response: { output: 'paid 5 from main' } } }]);
      expect(v2.inputCalls.map(({ inputResponses, requestState }) => [inputResponses, requestState])).toEqual([
        [undefined, undefined],
        [{ confirm: { action: 'accept', content: { confirm: true, account: 'main' } } }, 'pay:5'],
      ]);
    },
  );

  it.each([
    [false, 'decline', "tool error: 'pay' needed input from the user, who declined"],
    [true, 'cancel', "tool error: 'pay' needed input from the user, who cancelled"],
  ])(
    'a person who answers (stream: %s) %s: the model reads so as the error and the tool is not called again',
    async (stream, action, text) => {
      const gw = await gateway(pays);
      const handed = await ask(gw, stream, [question]);
      const answer = await ask(gw, stream, answering(handed, [question], { action }));
      expect(answer.content.parts?.map((part) => part.text).join('')).toBe('Paid.');
      expect(rig.upstream.requests[1].refused).toBeUndefined();
      expect(lastParts(1)).toEqual([{ functionResponse: { name: 'pay', response: { error: text } } }]);
      expect(v2.inputCalls).toHaveLength(1);
    },
  );

  it('a client that declared no input function: the model reads that it cannot be asked', async () => {
    const gw = await gateway(pays);
    const answer = await gw.genai.models.generateContent({ model, contents: [question] });
    expect(answer.text).toBe('Paid.');
    expect(lastParts(1)).toEqual([
      {
        functionResponse: {
          name: 'pay',
          response: { error: "tool error: 'pay' needs input from the user, which this client cannot give" },
        },
      },
    ]);
  });

  it.each([false, true])(
    'asks two questions together, one functionCall each; a tool that asks again is asked again at once (stream: %s)',
    async (stream) => {
      const gw = await gateway([{ calls: [{ name: 'profile' }, { name: 'two_steps' }] }, { text: 'ok' }]);
      const handed = await ask(gw, stream, [question]);
      expect(handed.calls.map((call) => call.args?.message)).toEqual(['Your name?', 'Your colour?', 'First word?']);
      const first = answering(
        handed,
        [question],
        accept({ name: 'Ann' }),
        accept({ color: 'red' }),
        accept({ word: 'x' }),
      );
      const again = await ask(gw, stream, first);
      expect(again.calls.map((call) => call.args?.message)).toEqual(['Second word?']);
      expect(rig.upstream.requests).toHaveLength(1);
      await ask(gw, stream, answering(again, first, accept({ word: 'y' })));
      expect(rig.upstream.requests).toHaveLength(2);
      expect(rig.upstream.requests[1].refused).toBeUndefined();
      expect(lastParts(1)).toEqual([
        { functionResponse: { name: 'profile', response: { output: 'Ann likes red' } } },
        { functionResponse: { name: 'two_steps', response: { output: 'x then y' } } },
      ]);
    },
  );

  it('a page to visit is a URL question, answered with accept alone', async () => {
    const gw = await gateway([{ calls: [{ name: 'open_page' }] }, { text: 'ok' }]);
    const handed = await ask(gw, false, [question]);
    expect(handed.calls.map((call) => call.args)).toEqual([
      { tool: 'open_page', message: 'Finish on the page', mode: 'url', url: 'https://pay.example.com/finish?id=7' },
    ]);
    await ask(gw, false, answering(handed, [question], { action: 'accept' }));
    expect(lastParts(1)).toEqual([
      { functionResponse: { name: 'open_page', response: { output: 'the person finished on the page' } } },
    ]);
  });

  it.each([false, true])(
    'an answer that does not fit the form: a tool error naming the field, the tool not called with it (stream: %s)',
    async (stream) => {
      const gw = await gateway(pays);
      const handed = await ask(gw, stream, [question]);
      await ask(gw, stream, answering(handed, [question], accept({ confirm: true })));
      expect(lastParts(1)).toEqual([
        {
          functionResponse: {
            name: 'pay',
            response: {
              error:
                "tool error: the user's answer to 'pay' does not fit its question: 'account' must have required property 'account'; the tool was not called with it",
            },
          },
        },
      ]);

      expect(v2.inputCalls).toHaveLength(1);
    },
  );

  it('a tampered question is not one this gateway asked: the tool does not run again, the model call goes back signed as Google documents', async () => {
    const gw = await gateway(pays);
    const handed = await ask(gw, false, [question]);
    const [call] = handed.calls;
    const at = (call.id as string).indexOf('.in1.') + 12;
    const id = `${call.id?.slice(0, at)}${call.id?.[at] === 'A' ? 'B' : 'A'}${call.id?.slice(at + 1)}`;
    const tampered = {
      content: { role: 'model', parts: [{ functionCall: { ...call, id } }] },
      calls: [{ ...call, id }],
    };
    await ask(gw, false, answering(tampered, [question], accept({ confirm: true, account: 'x' })));
    expect(rig.upstream.requests[1].refused).toBeUndefined();
    expect(rig.upstream.requests[1].body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [{ functionCall: { name: 'pay', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'pay',
              response: {
                error: "tool error: the question of 'pay' is not one this gateway asked; the call did not run",
              },
            },
          },
        ],
      },
    ]);
    expect(v2.inputCalls).toHaveLength(1);
  });

  it('a call to approve and a question in one answer, each by its own function; the approved tool asks in turn', async () => {
    const gw = await gateway([{ calls: [{ name: 'profile' }, { name: 'pay', args: { amount: 5 } }] }, { text: 'ok' }], {
      requireApproval: { never: { toolNames: ['pay'] } },
    });
    const handed = await ask(gw, true, [question]);
    expect(handed.calls.map((call) => [call.name, call.args?.tool])).toEqual([
      ['approve_tool_call', 'profile'],
      ['ask_user', 'pay'],
    ]);
    const first = answering(handed, [question], { approved: true }, accept({ confirm: true, account: 'main' }));
    const again = await ask(gw, true, first);
    expect(again.calls.map((call) => [call.name, call.args?.message])).toEqual([
      ['ask_user', 'Your name?'],
      ['ask_user', 'Your colour?'],
    ]);
    expect(rig.upstream.requests).toHaveLength(1);
    await ask(gw, true, answering(again, first, accept({ name: 'Ann' }), accept({ color: 'red' })));
    expect(rig.upstream.requests[1].refused).toBeUndefined();
    expect(lastParts(1)).toEqual([
      { functionResponse: { name: 'pay', response: { output: 'paid 5 from main' } } },
      { functionResponse: { name: 'profile', response: { output: 'Ann likes red' } } },
    ]);
  });
});
