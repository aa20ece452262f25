import fc from 'fast-check';
import { CLIENT_TOOL, TOOLS, editedId, type TokenEdit } from './hostile-wires';
import type { HostileReply } from './hostile-replies';

/**
 * Hostile Gemini replies (`GenerateContentResponse` JSON and its SSE chunks): malformed or cut JSON, truncated
 * streams, parts that are not objects, a functionCall whose args are a string, huge text, fields of a wrong type; and
 * the follow-up to a Gemini hand-back with its id forged, cut, repeated or unanswered.
 */

type Item = Record<string, unknown>;

const hostileValue = fc.oneof(
  { weight: 3, arbitrary: fc.anything({ maxDepth: 2 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, [], {}, '', 0, -1, true, '__proto__', [null]) },
);
const field = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });

const toolName = field(fc.constantFrom<unknown>(TOOLS.lookup, TOOLS.flaky, CLIENT_TOOL, 'nope', ''));
const args = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>({}, { q: 'a' }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('{"q":"a"}', '{"a":', '[]', [], null) },
  { weight: 1, arbitrary: hostileValue },
);
const callPart = fc
  .record(
    {
      functionCall: fc.record(
        { name: toolName, args, id: field(fc.constantFrom('fzr_1', 'fzr_1', 'x.al1.forged')) },
        {
          requiredKeys: ['name'],
        },
      ),
      thoughtSignature: field(fc.constant('c2ln')),
    },
    { requiredKeys: ['functionCall'] },
  )
  .map((part) => part as Item);
const part = fc.oneof(
  { weight: 3, arbitrary: field(fc.constantFrom('an answer', '')).map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.constant({ text: 'x'.repeat(300_000) }) },
  { weight: 1, arbitrary: fc.constant({ text: 'thinking', thought: true }) },
  { weight: 3, arbitrary: callPart },
  { weight: 1, arbitrary: hostileValue },
);

/** `item` with one of its fields dropped or replaced now and then */
const mutated = (item: fc.Arbitrary<Item>) =>
  fc.tuple(item, fc.option(fc.tuple(fc.nat(), fc.boolean(), hostileValue), { freq: 3 })).map(([whole, change]) => {
    if (!change) return whole;
    const [at, drop, value] = change;
    const keys = Object.keys(whole);
    const key = keys[at % keys.length];
    const { [key]: _, ...rest } = whole;
    return drop ? rest : { ...rest, [key]: value };
  });

const candidate = mutated(
  fc.record({
    content: mutated(fc.record({ role: fc.constant('model'), parts: field(fc.array(part, { maxLength: 4 })) })),
    finishReason: field(fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY', 'MALFORMED_FUNCTION_CALL')),
    index: fc.constant(0),
  }),
);
const usage = { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 };
const response = mutated(
  fc.record({
    candidates: field(fc.array(candidate, { minLength: 1, maxLength: 2 })),
    usageMetadata: field(fc.constant(usage)),
    modelVersion: fc.constant('loop-fuzz'),
  }),
);

/** How a reply is broken on the way: whole, cut short, a chunk's JSON broken, or a chunk repeated. */
const damage = fc.record({ how: fc.constantFrom('none', 'none', 'cut', 'broken', 'repeat'), at: fc.nat() });

function sseOf(chunks: Item[], { how, at }: { how: string; at: number }): string {
  const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
  const i = at % events.length;
  if (how === 'broken') events[i] = `data: ${JSON.stringify(chunks[i]).slice(0, -3)}\r\n\r\n`;
  if (how === 'repeat') events.splice(i, 0, events[i]);
  const text = events.join('');
  return how === 'cut' ? text.slice(0, at % text.length) : text;
}

const ofKind = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.array(response, { minLength: 1, maxLength: 4 }), damage).map(([chunks, broken]) => {
      const json = JSON.stringify(chunks[0]);
      return {
        status: 200,
        json: broken.how === 'cut' || broken.how === 'broken' ? json.slice(0, broken.at % json.length) : json,
        sse: sseOf(chunks, broken),
      };
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<HostileReply>(
      { status: 200, json: '<html>nope</html>', sse: '<html>nope</html>' },
      { status: 503, json: '{"error":{"code":503,"status":"UNAVAILABLE"}}', sse: 'data: {"error":{}}\r\n\r\n' },
      { status: 200, json: 'data: {"candidates":[]}\r\n\r\n', sse: '{"candidates":[{"content":{"parts":[]}}]}' },
      { status: 200, json: '', sse: '' },
    ),
  },
);

export const hostileGeminiReply: fc.Arbitrary<HostileReply> = ofKind;

/** A well-formed question with the client's own function. */
export const askingGemini = (question: string, tools = [CLIENT_TOOL]) => ({
  contents: [{ role: 'user', parts: [{ text: question }] }],
  tools: [{ functionDeclarations: tools.map((name) => ({ name, parametersJsonSchema: { type: 'object' } })) }],
});

/** The follow-up to a Gemini hand-back (the whole JSON answer): the model's content, the client's answer, as `edit` says. */
export function geminiFollowUp(
  question: string,
  answer: Item,
  edit: TokenEdit,
  output: unknown = 'sunny',
  tool = CLIENT_TOOL,
) {
  const content = ((answer.candidates as Item[])[0].content ?? {}) as { parts: Item[] };
  const call = content.parts.find((p) => p.functionCall)!.functionCall as Item;
  const id = String(call.id);
  const callId = edit.where === 'answer' ? id : editedId(id, edit);
  const answerId = edit.where === 'call' ? id : editedId(id, edit);
  const parts = content.parts.map((p) => (p.functionCall ? { ...p, functionCall: { ...call, id: callId } } : p));
  const responses = [
    ...(edit.answered ? [{ functionResponse: { name: call.name, id: answerId, response: { output } } }] : []),
    ...(edit.stray ? [{ functionResponse: { name: 'stray', id: 'fzs_never', response: { output: 'stray' } } }] : []),
  ];
  const exchange = [{ role: 'model', parts }, ...(responses.length ? [{ role: 'user', parts: responses }] : [])];
  return {
    ...askingGemini(question, [tool]),
    contents: [
      { role: 'user', parts: [{ text: question }] },
      ...Array.from({ length: edit.copies }, () => exchange).flat(),
    ],
  };
}
