import type { Content, GenerateContentResponse, Part } from '@google/genai' with { 'resolution-mode': 'import' };
import { NOTES } from '../../fixtures/mcp-tools';
import type { JudgeInput } from '../../lib/types';
import { CLIENT_KEY, geminiRig, type GeminiGateway } from './gemini-gateway';

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
    const gw = await rig.gateway(
      [{ text: 'Asking you.', calls: [{ name: 'pick_shop', args: { q: 'which shop?' } }] }],
      {
        bindings: [notes],
      },
    );
    const outcome = await drive(gw, question, {
      tools: [{ functionDeclarations: [{ name: 'pick_shop', parametersJsonSchema: { type: 'object' } }] }],
    });
    expect(outcome.text).toBe('Asking you.');
    expect(outcome.calls).toEqual([
      { name: 'pick_shop', id: expect.any(String), args: { q: 'which shop?' }, signed: true },
    ]);
    const [first] = rig.upstream.requests;
    expect(first.body.tools?.map((tool) => tool.functionDeclarations?.map((fn) => fn.name))).toEqual([
      ['notes_open', 'notes_read', 'clock_now', 'slow', 'fails'],
      ['pick_shop'],
    ]);
  });

  it('ends a token budget with the note; a failed later turn with its reason', async () => {
    const gw = await rig.gateway([{ text: 'Looking.', calls: [{ name: 'clock_now' }] }], {
      bindings: [notes],
      maxTokensPerLoop: 100,
    });
    expect((await drive(gw, question)).text).toBe(
      'Looking.\n\nLooking.\n\n[agent-loop] Stopped before a final answer: the token budget ran out (maxTokensPerLoop = 100, 100 used).',
    );
    rig.upstream.setScript([{ text: 'Looking.', calls: [{ name: 'clock_now' }] }, { status: 503 }]);
    expect((await drive(gw, question)).text).toBe(
      'Looking.\n\n[agent-loop] Stopped before a final answer: the model call of turn 2 failed (HTTP 503: scripted failure 503).',
    );
  });

  it('falls through untouched when the first turn fails: the normal handler serves the client’s own request', async () => {
    let calls = 0;
    const gw = await rig.gateway(() => (++calls === 1 ? { status: 503 } : { text: 'Plain answer.' }), {
      bindings: [notes],
    });
    expect((await drive(gw, question)).text).toBe('Plain answer.');
    const [turn, passedOn] = rig.upstream.requests;
    expect(turn.body.tools).toBeDefined();
    expect(passedOn.body.tools).toBeUndefined();
    expect(passedOn.headers['x-mcp-internal']).toBeUndefined();
  });

  it('runs only maxToolCallsPerTurn calls and sends back the model content listing only those, the signed one first', async () => {
    const gw = await rig.gateway([{ calls: [{ name: 'notes_open' }, { name: 'clock_now' }] }, { text: 'Done.' }], {
      bindings: [notes],
      maxToolCallsPerTurn: 1,
    });
    expect((await drive(gw, question)).text).toBe('Done.');
    const [, second] = rig.upstream.requests;
    expect(second.refused).toBeUndefined();
    expect(second.body.contents[1].parts).toEqual([
      { functionCall: { name: 'notes_open', args: {} }, thoughtSignature: expect.any(String) },
    ]);
  });

  it('keeps each turn within maxContextBytes: the loop’s oldest result elided, every call still answered', async () => {
    const gw = await rig.gateway(
      [
        { calls: [{ name: 'big', args: { bytes: 6000 } }] },
        { calls: [{ name: 'big', args: { bytes: 6000 } }] },
        { text: 'Big.' },
      ],
      { bindings: [{ ...notes, hierarchy: ['big'] }], maxContextBytes: 10_000 },
    );
    expect((await drive(gw, question)).text).toBe('Big.');
    const third = rig.upstream.requests[2];
    expect(third.refused).toBeUndefined();
    expect(third.body.contents[2].parts).toEqual([
      { functionResponse: { name: 'big', response: { output: "[earlier result of 'big' elided: 6000 bytes]" } } },
    ]);
    expect(rig.lastParts(2)).toEqual([{ functionResponse: { name: 'big', response: { output: 'x'.repeat(6000) } } }]);
  });

  it('answers a judge block with its text as the error; the judge reads the Gemini conversation and the wire', async () => {
    const inputs: JudgeInput[] = [];
    const judge = {
      async evaluate(input: JudgeInput) {
        inputs.push(structuredClone(input));
        return input.tool === 'clock_now'
          ? { action: 'block' as const, reason: 'no clocks here' }
          : { action: 'allow' as const };
      },
    };
    const gw = await rig.gateway([{ text: 'Checking.', calls: [{ name: 'clock_now' }] }, { text: 'Blocked, sorry.' }], {
      bindings: [notes],
      judge,
    });
    expect((await drive(gw, 'time?')).text).toBe('Checking.\n\nBlocked, sorry.');
    expect(rig.lastParts(1)).toEqual([
      { functionResponse: { name: 'clock_now', response: { error: 'tool error: blocked by policy: no clocks here' } } },
    ]);
    expect(inputs[0]).toMatchObject({ surface: 'tool_call', wire: 'gemini', tool: 'clock_now' });
    expect(inputs[0].messages).toEqual([
      { role: 'user', parts: [{ text: 'time?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'clock_now', args: {} }, thoughtSignature: expect.any(String) },
        ],
      },
    ]);
  });

  it('passes a request with function calling NONE to the normal handler untouched', async () => {
    const gw = await rig.gateway([{ text: 'no tools here' }], { bindings: [notes] });
    const outcome = await drive(gw, question, { toolConfig: { functionCallingConfig: { mode: 'NONE' } } });
    expect(outcome.text).toBe('no tools here');
    expect(rig.upstream.requests[0].body.tools).toBeUndefined();
  });
});

describe.each([false, true])('the Gemini wire: a hand-back and its follow-up (stream: %s)', (stream) => {
  const rig = geminiRig();
  const tools = [
    {
      functionDeclarations: [
        { name: 'get_location', description: 'Where the user is.', parametersJsonSchema: { type: 'object' } },
      ],
    },
  ];
  const ask = async (gw: GeminiGateway, contents: Content[]): Promise<Content> => {
    if (!stream) {
      const response = await gw.genai.models.generateContent({ model, contents, config: { tools } });
      return response.candidates?.[0]?.content as Content;
    }
    const parts: Part[] = [];
    for await (const chunk of await gw.genai.models.generateContentStream({ model, contents, config: { tools } }))
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    return { role: 'model', parts };
  };

  it("carries the loop's work in the first call's id; the follow-up puts it back exactly, every id the model's own (none)", async () => {
    const gw = await rig.gateway(
      [
        { calls: [{ name: 'notes_open' }] },
        { text: 'Where are you?', calls: [{ name: 'get_location' }] },
        { text: 'In Berlin: buy milk, eggs, coffee beans, lemons.' },
      ],
      { bindings: [notes] },
    );
    const question: Content = { role: 'user', parts: [{ text: 'what should I buy?' }] };
    const first = await ask(gw, [question]);
    const call = first.parts?.find((part) => part.functionCall)?.functionCall;
    expect(call).toMatchObject({ name: 'get_location', id: expect.stringMatching(/\.al1\./) });
    const answer = await ask(gw, [
      question,
      first,
      {
        role: 'user',
        parts: [{ functionResponse: { id: call?.id, name: 'get_location', response: { output: 'Berlin' } } }],
      },
    ]);
    expect(answer.parts?.map((part) => part.text).join('')).toBe('In Berlin: buy milk, eggs, coffee beans, lemons.');
    expect(rig.upstream.requests).toHaveLength(3);
    const followUp = rig.upstream.requests[2];
    expect(followUp.refused).toBeUndefined();
    expect(followUp.body.contents).toEqual([
      question,
      {
        role: 'model',
        parts: [{ functionCall: { name: 'notes_open', args: {} }, thoughtSignature: expect.any(String) }],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'notes_open', response: { output: 'note ids: welcome, groceries, standup' } } },
        ],
      },
      {
        role: 'model',
        parts: [
          stream ? expect.objectContaining({ text: 'Where are you?' }) : { text: 'Where are you?' },
          { functionCall: { name: 'get_location', args: {} }, thoughtSignature: expect.any(String) },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_location', response: { output: 'Berlin' } } }] },
    ]);
  });

  it('puts a first turn’s hand-back back as the model sent it: no id it never sent goes upstream', async () => {
    const gw = await rig.gateway([{ calls: [{ name: 'get_location' }] }, { text: 'Berlin it is.' }], {
      bindings: [notes],
    });
    const question: Content = { role: 'user', parts: [{ text: 'where am I?' }] };
    const first = await ask(gw, [question]);
    const call = first.parts?.find((part) => part.functionCall)?.functionCall;
    await ask(gw, [
      question,
      first,
      {
        role: 'user',
        parts: [{ functionResponse: { id: call?.id, name: 'get_location', response: { output: 'Berlin' } } }],
      },
    ]);
    const followUp = rig.upstream.requests[1];
    expect(followUp.refused).toBeUndefined();
    expect(followUp.body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [{ functionCall: { name: 'get_location', args: {} }, thoughtSignature: expect.any(String) }],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_location', response: { output: 'Berlin' } } }] },
    ]);
  });
});

describe('the Gemini wire over plain HTTP', () => {
  const rig = geminiRig();
  const body = { contents: [{ role: 'user', parts: [{ text: question }] }] };
  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('refuses the JSON-array stream form (no alt=sse) with a 400 in Google’s shape', async () => {
    const gw = await rig.gateway([{ text: 'hi' }], { bindings: [notes] });
    const response = await post(`${gw.url}/v1beta/models/${model}:streamGenerateContent?key=${CLIENT_KEY}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 400,
        message:
          'agent-loop streams :streamGenerateContent as server-sent events only: add ?alt=sse to the URL (the @google/genai SDK does), or call :generateContent for one JSON response.',
        status: 'INVALID_ARGUMENT',
      },
    });
    expect(rig.upstream.requests).toHaveLength(0);
  });

  it('serves /v1/ too, with the key in the query, forwarded on every turn and never logged', async () => {
    const gw = await rig.gateway([{ calls: [{ name: 'clock_now' }] }, { text: 'Noon.' }], { bindings: [notes] });
    const response = await post(`${gw.url}/v1/models/${model}:generateContent?key=${CLIENT_KEY}`);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { candidates: { content: unknown }[] };
    expect(answer.candidates[0].content).toEqual({ role: 'model', parts: [{ text: 'Noon.' }] });
    expect(rig.upstream.requests.map((request) => request.path)).toEqual([
      `/v1/models/${model}:generateContent?key=${CLIENT_KEY}`,
      `/v1/models/${model}:generateContent?key=${CLIENT_KEY}`,
    ]);
    await post(`${gw.url}/v1/models/${model}:generateContent?key=${CLIENT_KEY}`, { 'x-mcp-internal': 'forged' });
    expect(gw.lines.some((line) => JSON.stringify(line).includes(CLIENT_KEY))).toBe(false);
    expect(gw.lines).toContainEqual(expect.objectContaining({ path: `/v1/models/${model}:generateContent` }));
  });

  it('answers a spent keyBudget with a 429 in Google’s shape', async () => {
    const gw = await rig.gateway([{ text: 'hi' }], { bindings: [notes], keyBudget: { tokens: 10, windowSec: 60 } });
    const url = `${gw.url}/v1beta/models/${model}:generateContent`;
    expect((await post(url, { 'x-goog-api-key': CLIENT_KEY })).status).toBe(200);
    const refused = await post(url, { 'x-goog-api-key': CLIENT_KEY });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: { code: 429, message: expect.stringContaining('token budget'), status: 'RESOURCE_EXHAUSTED' },
    });
  });
});
