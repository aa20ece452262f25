import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import { googleError } from '../../lib/testing/gemini';
import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';

// The SDK's types are ES module ones; its CommonJS build (the `require` condition) is what runs here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require('@google/genai') as typeof GenAI;

const tools = [{ functionDeclarations: [{ name: 'clock_now', parametersJsonSchema: { type: 'object' } }] }];
const question: GenAI.Content = { role: 'user', parts: [{ text: 'What time is it?' }] };

/** The scripted model on Google's Gemini API, read by the official SDK, JSON and streamed. */
describe('the scripted model on Gemini', () => {
  let model: ScriptedModel;
  let client: GenAI.GoogleGenAI;
  beforeAll(async () => {
    model = scriptedModel([
      {
        content: 'Let me check.',
        toolCalls: [{ name: 'clock_now', arguments: { zone: 'UTC' } }],
        usage: { inputTokens: 50, outputTokens: 9 },
      },
      { content: 'It is noon, in the scripted world of tests.' },
    ]);
    await model.ready;
    // the SDK adds /v1beta itself; jest's sandbox hides Node's fetch dispatcher from it, so it gets this fetch
    client = new GoogleGenAI({
      apiKey: 'AIza-test',
      httpOptions: { baseUrl: model.url.replace(/\/v1$/, ''), fetch: (input, init) => fetch(input, init) },
    });
  });
  afterAll(() => model.close());

  it('answers with text and a signed call, then with the text once the conversation holds that turn', async () => {
    const first = await client.models.generateContent({
      model: 'gemini-test',
      contents: [question],
      config: { tools },
    });
    expect(first.candidates?.[0]).toEqual({
      content: {
        role: 'model',
        parts: [
          { text: 'Let me check.' },
          { functionCall: { name: 'clock_now', args: { zone: 'UTC' } }, thoughtSignature: expect.any(String) },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    });
    expect(first.usageMetadata).toEqual({ promptTokenCount: 50, candidatesTokenCount: 9, totalTokenCount: 59 });
    expect(first.modelVersion).toBe('gemini-test');
    const history = [
      question,
      first.candidates?.[0]?.content as GenAI.Content,
      { role: 'user', parts: [{ functionResponse: { name: 'clock_now', response: { output: '12:00' } } }] },
    ];
    const chunks: GenAI.GenerateContentResponse[] = [];
    for await (const chunk of await client.models.generateContentStream({ model: 'gemini-test', contents: history }))
      chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.candidates?.[0]?.content?.parts?.[0]?.text).join('')).toBe(
      'It is noon, in the scripted world of tests.',
    );
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)?.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));
    expect(model.requests.map(({ path, wire, turn }) => ({ path, wire, turn }))).toEqual([
      { path: '/v1beta/models/gemini-test:generateContent', wire: 'gemini', turn: 0 },
      { path: '/v1beta/models/gemini-test:streamGenerateContent?alt=sse', wire: 'gemini', turn: 1 },
    ]);
  });

  /** a follow-up holding the model's call to clock_now with `signature` (none: left out), and its answer */
  const withCall = (signature?: string) =>
    fetch(`${model.url.replace(/\/v1$/, '')}/v1beta/models/g:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [
          question,
          {
            role: 'model',
            parts: [
              {
                functionCall: { name: 'clock_now', args: { zone: 'UTC' } },
                ...(signature === undefined ? {} : { thoughtSignature: signature }),
              },
            ],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'clock_now', response: {} } }] },
        ],
      }),
    });

  it.each([undefined, 'forged'])(
    'refuses a call part that comes back without its signature, or altered (%s), with the API’s 400',
    async (signature) => {
      const response = await withCall(signature);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        googleError(
          400,
          'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:clock_now` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
        ),
      );
    },
  );

  it('takes a call part with the skip signature Google documents for calls the model did not make', async () => {
    expect((await withCall('skip_thought_signature_validator')).status).toBe(200);
  });
});
