import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json';
import { nextId, usageOf, type Body, type ScriptedWire } from './wire';
import { isStreamPath, modelInPath } from '../wire/gemini/request';

/**
 * The shapes of Google's Gemini API, as the real API's replies recorded by googleapis/js-genai for its system tests
 * hold them (test/system/recordings: `gemini-2.5-flash` streamed function calling): the `thoughtSignature` on the
 * first functionCall part of a turn and on the last part of a turn without calls, no `functionCall.id`,
 * `finishReason: 'STOP'` with calls too. Beyond the recordings: only the first of parallel calls signed (Google's
 * thought-signature docs), usageMetadata repeated cumulatively on every chunk of a stream. It checks what comes back:
 * a call part without the signature it was sent with, or altered, is refused with the API's own 400 (its text as
 * public bug reports quote it).
 */
const SIGNING_KEY = randomBytes(32);

const STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 404: 'NOT_FOUND', 500: 'INTERNAL' };

/** The API's error body. */
export const googleError = (code: number, message: string): Body => ({
  error: { code, message, status: STATUS[code] ?? 'UNKNOWN' },
});

/**
 * A part's signature: this process's HMAC of the part (its signature aside, in any key order), so one that comes back
 * altered does not verify.
 */
function signatureOf(part: Body): string {
  const { thoughtSignature: _signature, ...rest } = part;
  return createHmac('sha256', SIGNING_KEY).update(canonicalJson(rest)).digest('base64');
}

const partsOf = (content: unknown): Body[] =>
  Array.isArray((content as Body | null)?.parts) ? ((content as Body).parts as Body[]) : [];

/** The signature Google documents for calls the model did not make (a client's own history): the API takes it. */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Why the API refuses a model's call parts: the first one's signature missing, or neither this model's nor skip. */
function signatureRefusal(contents: Body[]): string | undefined {
  for (const [i, content] of contents.entries()) {
    const first = content.role === 'model' ? partsOf(content).find((part) => part.functionCall) : undefined;
    if (first && first.thoughtSignature !== SKIP_SIGNATURE && first.thoughtSignature !== signatureOf(first))
      return (
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to ` +
        `work correctly, and missing thought_signature may lead to degraded model performance. Additional ` +
        `data, function call \`default_api:${String((first.functionCall as Body).name)}\` , position ${i + 1}. ` +
        `Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`
      );
  }
  return undefined;
}

/** Google Gemini, `POST /v1beta/models/{model}:generateContent` (and `/v1/`): a model turn is a `model` content. */
export const geminiWire: ScriptedWire = {
  name: 'gemini',
  streams: isStreamPath,
  unreadable(body) {
    if (!Array.isArray(body.contents) || body.contents.length === 0)
      return '* GenerateContentRequest.contents: contents is not specified';
    if ('stream' in body) return 'Invalid JSON payload received. Unknown name "stream": Cannot find field.';
    return signatureRefusal(body.contents as Body[]);
  },
  turnOf: (body) => (body.contents as Body[]).filter((content) => content.role === 'model').length,
  history: (body) => body.contents as Body[],
  json(turn, _body, _turnIndex, path = '') {
    const parts: Body[] = [
      ...(turn.content === undefined ? [] : [{ text: turn.content }]),
      ...(turn.toolCalls ?? []).map(({ name, arguments: args }) => ({ functionCall: { name, args: args ?? {} } })),
    ];
    const signed = parts.findIndex((part) => part.functionCall);
    const at = signed >= 0 ? signed : parts.length - 1;
    if (at >= 0) parts[at] = { ...parts[at], thoughtSignature: signatureOf(parts[at]) };
    const { inputTokens, outputTokens } = usageOf(turn);
    return {
      candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: inputTokens,
        candidatesTokenCount: outputTokens,
        totalTokenCount: inputTokens + outputTokens,
      },
      modelVersion: modelInPath(path.split('?')[0]) ?? 'scripted',
      responseId: `scripted-${nextId()}`,
    };
  },
  /** Text in pieces, each chunk with the usage so far; a call part whole; the finishReason on the last chunk. */
  events(whole) {
    const [candidate] = whole.candidates as Body[];
    const usage = whole.usageMetadata as Body;
    const pieces = partsOf(candidate.content).flatMap((part) => {
      if (typeof part.text !== 'string' || part.text.length <= 8) return [part];
      const text = part.text;
      const count = Math.ceil(text.length / 8);
      // the signature, if any, on the last piece: where the API sends it
      return Array.from({ length: count }, (_, i) =>
        i === count - 1 ? { ...part, text: text.slice(i * 8) } : { text: text.slice(i * 8, (i + 1) * 8) },
      );
    });
    return pieces.map((part, i) => {
      const last = i === pieces.length - 1;
      const chunk = {
        ...whole,
        candidates: [
          { content: { parts: [part], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 },
        ],
        usageMetadata: last ? usage : { ...usage, candidatesTokenCount: i + 1 },
      };
      return { data: JSON.stringify(chunk) };
    });
  },
  error: googleError,
};
