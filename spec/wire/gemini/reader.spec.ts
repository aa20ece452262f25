import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Request } from 'express';
import fc from 'fast-check';
import { geminiWire } from '../../../lib/wire/gemini/gemini';
import type { Content } from '../../../lib/wire/gemini/types';
import { loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', parts: [{ text: 'hi' }] };
const reqOf = (url: string, query: Record<string, string> = {}) =>
  ({ path: url.split('?')[0], query }) as unknown as Request;
const JSON_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';

interface Interaction {
  request: { url: string; bodySegments: [{ contents: Content[] }] };
  response: { bodySegments: Record<string, unknown>[] };
}

const recording = (name: string): Interaction[] =>
  JSON.parse(readFileSync(path.join(__dirname, '../../../fixtures/gemini-recorded', `${name}.json`), 'utf8'))
    .interactions;

const AFC =
  'AFC_Streaming_Tests_chat_stream_AFC_enabled_AFC_max_calls_exceeded_Google_AI_can_continue_after_max_calls_exceeded';
const CALLING = 'Chats_Tests_chats_function_calling_Google_AI_with_function_calling';

/** The recorded chunks as the API sent them: `data: <chunk>` events separated by CRLF CRLF. */
const sse = (segments: Record<string, unknown>[]) =>
  Readable.from(segments.map((segment) => `data: ${JSON.stringify(segment)}\r\n\r\n`));

describe("the Gemini wire replays the real API's recorded replies (googleapis/js-genai)", () => {
  it('reads a streamed gemini-2.5-flash call: the part whole, its thought signature on it, the usage of the last chunk', async () => {
    const [first, second, third] = recording(AFC);
    const { reader, conversation } = geminiWire.open(
      first.request.bodySegments[0],
      loopSetup([]),
      reqOf(first.request.url),
    );
    const texts: string[] = [];
    const turn = await reader.stream(sse(first.response.bodySegments), (text) => void texts.push(text), 1e6);
    const [recorded] = first.response.bodySegments as { candidates: [{ content: Content }] }[];
    expect(turn.output.parts).toEqual(recorded.candidates[0].content.parts);
    expect(turn.calls).toEqual([
      { id: '', name: 'customDivide', arguments: '{"denominator":2,"numerator":10}', index: 0 },
    ]);
    expect(turn.usage).toEqual({ input: 81, output: expect.any(Number), total: expect.any(Number) });
    // what goes upstream next is what the SDK itself sent back to the real API, which took it
    conversation.addOutput(turn, [{ ...turn.calls[0], id: 'call_loop' }]);
    conversation.addOutcomes([{ ...turn.calls[0], id: 'call_loop' }], [{ kind: 'ok', text: '42' }]);
    const sent = JSON.parse(conversation.request().json).contents;
    const accepted = second.request.bodySegments[0].contents;
    expect(sent[1]).toEqual(accepted[1]);
    expect(sent[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'customDivide', response: { output: '42' } } }],
    });
    expect(accepted[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'customDivide', response: { output: 42 } } }],
    });
    // the final text turn: its text goes to the client, its signature stays on its part
    const final = await reader.stream(sse(third.response.bodySegments), (text) => void texts.push(text), 1e6);
    expect(final.calls).toEqual([]);
    expect(final.text).toBe(texts[texts.length - 1]);
    expect(final.output.parts.some((part) => typeof part.thoughtSignature === 'string')).toBe(true);
    expect(final.stop).toBe('STOP');
  });

  it("reads a finishReason that is not a string as none: the client's answer never repeats it", () => {
    const { reader } = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH));
    const reply = (finishReason: unknown) => ({
      candidates: [{ content: { role: 'model', parts: [] }, finishReason }],
    });
    expect([0, { a: 1 }, null].map((reason) => reader.json(reply(reason)).stop)).toEqual([null, null, null]);
    expect(reader.json(reply('MAX_TOKENS')).stop).toBe('MAX_TOKENS');
  });

  it('reads JSON gemini-2.0-flash calls without a signature or an id, turn after turn', () => {
    const [call, answer] = recording(CALLING);
    const { reader } = geminiWire.open(call.request.bodySegments[0], loopSetup([]), reqOf(call.request.url));
    const turn = reader.json(call.response.bodySegments[0]);
    expect(turn.calls).toEqual([
      { id: '', name: 'customDivide', arguments: '{"denominator":2,"numerator":100}', index: 0 },
    ]);
    expect(turn.model).toBe('gemini-2.0-flash');
    const next = reader.json(answer.response.bodySegments[0]);
    expect(next.calls.map((c) => c.arguments)).toEqual(['{"denominator":2,"numerator":50}']);
    expect(next.usage).toEqual({ input: expect.any(Number), output: expect.any(Number), total: expect.any(Number) });
  });

  it('reads the same call streamed', async () => {
    const [call] = recording(`${CALLING}_stream`);
    const { reader } = geminiWire.open(call.request.bodySegments[0], loopSetup([]), reqOf(call.request.url));
    const turn = await reader.stream(sse(call.response.bodySegments), () => undefined, 1e6);
    expect(turn.calls.map((c) => c.name)).toEqual(['customDivide']);
    expect(turn.usage).toEqual({ input: 21, output: 6, total: 27 });
  });
});

describe('the Gemini reader, on any reply', () => {
  it('reads any reply an upstream sends as a turn, or fails it with an Error naming what is wrong, never a TypeError', async () => {
    const anything = fc.jsonValue({ maxDepth: 4 });
    const part = fc.oneof(
      anything,
      fc.record({ text: anything, thought: anything, thoughtSignature: anything }, { requiredKeys: [] }),
      fc.record({ functionCall: fc.oneof(anything, fc.record({ name: anything, args: anything, id: anything })) }),
    );
    const reply = fc.oneof(
      anything,
      fc.record(
        {
          candidates: fc.oneof(
            anything,
            fc.array(
              fc.record(
                {
                  content: fc.oneof(anything, fc.record({ role: anything, parts: fc.oneof(anything, fc.array(part)) })),
                  finishReason: anything,
                },
                { requiredKeys: [] },
              ),
              { maxLength: 2 },
            ),
          ),
          usageMetadata: anything,
          error: anything,
        },
        { requiredKeys: [] },
      ),
    );
    const { reader } = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH));
    const noTypeError = (error: unknown) => {
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(TypeError);
    };
    fc.assert(
      fc.property(reply, (drawn) => {
        try {
          reader.json(drawn);
        } catch (error) {
          noTypeError(error);
        }
      }),
      { numRuns: 400 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 4 }), async (chunks) => {
        const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
        await reader.stream(Readable.from(events), () => undefined, 1e6).catch(noTypeError);
      }),
      { numRuns: 200 },
    );
  });
});
