import type { GenerateContentResponse } from '@google/genai' with { 'resolution-mode': 'import' };
import { NOTES } from '../../fixtures/mcp-tools';
import { geminiRig, type GeminiGateway } from './gemini-gateway';

const notes = {
  name: 'notes',
  match: { model: 'gemini-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now', 'slow', 'fails'],
};
const model = 'gemini-2.5-flash';
const question = 'what should I buy?';
const LOCKED = "⛔ 'notes_read' is locked: call 'notes_open' first.";

interface Outcome {
  text: string;
  finishReason?: string;
  usage?: GenerateContentResponse['usageMetadata'];
  calls: { name?: string; id?: string; args?: unknown; signed: boolean }[];
}

const partsOf = (response: GenerateContentResponse) => response.candidates?.[0]?.content?.parts ?? [];
const textOf = (response: GenerateContentResponse) =>
  partsOf(response)
    .map((part) => (part.thought ? '' : (part.text ?? '')))
    .join('');
const callsOf = (response: GenerateContentResponse) =>
  partsOf(response).flatMap(({ functionCall, thoughtSignature }) =>
    functionCall
      ? [
          {
            name: functionCall.name,
            id: functionCall.id,
            args: functionCall.args,
            signed: thoughtSignature !== undefined,
          },
        ]
      : [],
  );

const fromResponse = (response: GenerateContentResponse): Outcome => ({
  text: textOf(response),
  finishReason: response.candidates?.[0]?.finishReason,
  usage: response.usageMetadata,
  calls: callsOf(response),
});

/** The two ways the SDK asks: generateContent (JSON) and generateContentStream (SSE). */
const clients: [string, (gw: GeminiGateway, text: string, config?: object) => Promise<Outcome>][] = [
  [
    'generateContent',
    async (gw, text, config) => fromResponse(await gw.genai.models.generateContent({ model, contents: text, config })),
  ],
  [
    'generateContentStream',
    async (gw, text, config) => {
      const chunks: GenerateContentResponse[] = [];
      for await (const chunk of await gw.genai.models.generateContentStream({ model, contents: text, config }))
        chunks.push(chunk);
      const last = chunks[chunks.length - 1];
      return {
        text: chunks.map(textOf).join(''),
        finishReason: last?.candidates?.[0]?.finishReason,
        usage: last?.usageMetadata,
        calls: chunks.flatMap(callsOf),
      };
    },
  ],
];

describe.each(clients)('the Gemini wire, driven by @google/genai %s', (_client, drive) => {
  const rig = geminiRig();

  it('answers a gate refusal with its error, then runs the parent and the child: one response, usage summed over turns', async () => {
    const gw = await rig.gateway(
      [
        { text: 'Let me read it.', calls: [{ name: 'notes_read', args: { id: 'groceries' } }] },
        { calls: [{ name: 'notes_open' }] },
        { calls: [{ name: 'notes_read', args: { id: 'groceries' } }] },
        { text: 'Buy milk, eggs, coffee beans, lemons.' },
      ],
      { bindings: [notes] },
    );
    const outcome = await drive(gw, question);
    expect(outcome).toEqual({
      text: 'Let me read it.\n\nBuy milk, eggs, coffee beans, lemons.',
      finishReason: 'STOP',
      usage: { promptTokenCount: 48, candidatesTokenCount: 120, thoughtsTokenCount: 32, totalTokenCount: 200 },
      calls: [],
    });
    expect(rig.lastParts(1)).toEqual([{ functionResponse: { name: 'notes_read', response: { error: LOCKED } } }]);
    expect(rig.lastParts(3)).toEqual([
      { functionResponse: { name: 'notes_read', response: { output: NOTES.groceries } } },
    ]);
    expect(rig.mcp.calls.map((call) => call.name)).toEqual(['notes_open', 'notes_read']);
    const [first] = rig.upstream.requests;
    expect(first.path).toMatch(
      /^\/v1beta\/models\/gemini-2\.5-flash:(generateContent|streamGenerateContent\?alt=sse)$/,
    );
    expect(first.body.tools?.[0].functionDeclarations?.map((fn) => fn.name)).toEqual([
      'notes_open',
      'notes_read',
      'clock_now',
      'slow',
      'fails',
    ]);
    expect(first.body.tools?.[0].functionDeclarations?.[0]).toEqual({
      name: 'notes_open',
      description: 'Open the notebook and list the ids of its notes.',
      parametersJsonSchema: expect.objectContaining({ type: 'object' }),
    });
    expect(rig.upstream.requests.map((request) => request.refused)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    for (const request of rig.upstream.requests) {
      expect(request.headers['x-mcp-internal']).toBeUndefined();
      expect(request.headers['x-goog-api-key']).toBe('AIzaSy-gemini-client-key');
    }
  });

  it('runs parallel calls and answers them in one user content, in call order, the signed call part sent back exactly', async () => {
    const gw = await rig.gateway(
      [{ calls: [{ name: 'notes_open' }, { name: 'fails' }, { name: 'nope' }] }, { text: 'Done.' }],
      { bindings: [notes] },
    );
    expect((await drive(gw, question)).text).toBe('Done.');
    const second = rig.upstream.requests[1];
    expect(second.refused).toBeUndefined();
    const [, model] = second.body.contents;
    expect(model.role).toBe('model');
    expect(model.parts.map((part) => Object.keys(part).sort())).toEqual([
      ['functionCall', 'thoughtSignature'],
      ['functionCall'],
      ['functionCall'],
    ]);
    expect(rig.lastParts(1)).toEqual([
      { functionResponse: { name: 'notes_open', response: { output: 'note ids: welcome, groceries, standup' } } },
      { functionResponse: { name: 'fails', response: { error: 'tool error: disk full' } } },
      {
        functionResponse: {
          name: 'nope',
          response: {
            error: "tool error: unknown tool 'nope'; valid tools: notes_open, notes_read, clock_now, slow, fails",
          },
        },
      },
    ]);
  });

  it('ends a turn budget with the last answer and the note', async () => {
    const gw = await rig.gateway([{ text: 'Still looking.', calls: [{ name: 'clock_now' }] }], {
      bindings: [{ ...notes, maxTurns: 2 }],
    });
    const outcome = await drive(gw, question);
    expect(outcome.text).toBe(
      'Still looking.\n\nStill looking.\n\n[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = 2).',
    );
    expect(outcome.finishReason).toBe('STOP');
    expect(rig.upstream.requests).toHaveLength(2);
  });

  it("hands the client's own function back with an id to answer it by, its signature on it", async () => {
    const gw = await rig.gateway([{ text: 'Asking you.', calls: [{ name: 'ask_user', args: { q: 'which shop?' } }] }], {
      bindings: [notes],
    });
    const outcome = await drive(gw, question, {
      tools: [{ functionDeclarations: [{ name: 'ask_user', parametersJsonSchema: { type: 'object' } }] }],
    });
    expect(outcome.text).toBe('Asking you.');
    expect(outcome.calls).toEqual([
      { name: 'ask_user', id: expect.any(String), args: { q: 'which shop?' }, signed: true },
    ]);
    const [first] = rig.upstream.requests;
    expect(first.body.tools?.map((tool) => tool.functionDeclarations?.map((fn) => fn.name))).toEqual([
      ['notes_open', 'notes_read', 'clock_now', 'slow', 'fails'],
      ['ask_user'],
    ]);
  });

  it('passes a request with function calling NONE to the normal handler untouched', async () => {
    const gw = await rig.gateway([{ text: 'no tools here' }], { bindings: [notes] });
    const outcome = await drive(gw, question, { toolConfig: { functionCallingConfig: { mode: 'NONE' } } });
    expect(outcome.text).toBe('no tools here');
    expect(rig.upstream.requests[0].body.tools).toBeUndefined();
  });
});
