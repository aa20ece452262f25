import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Content } from '../../../lib/wire/gemini/types';
import type { Request } from 'express';
import fc from 'fast-check';
import { ApprovalLedger } from '../../../lib/person/ledger';
import { ApprovalTokens } from '../../../lib/person/approval';
import { MemoryStore } from '../../../lib/store/memory-store';
import { elision } from '../../../lib/wire/gemini/elision';
import { geminiWire } from '../../../lib/wire/gemini/gemini';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', parts: [{ text: 'hi' }] };
const reqOf = (url: string, query: Record<string, string> = {}) =>
  ({ path: url.split('?')[0], query }) as unknown as Request;
const JSON_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';

describe('the Gemini wire', () => {
  it('takes the model from the path, and the key headers its upstream needs', () => {
    expect(geminiWire.modelOf({ contents: [user] }, reqOf(JSON_PATH))).toBe('gemini-2.5-flash');
    expect(geminiWire.upstreamHeaders).toContain('x-goog-api-key');
    expect(geminiWire.rateLimited('spent')).toEqual({
      error: { code: 429, message: 'spent', status: 'RESOURCE_EXHAUSTED' },
    });
    expect(geminiWire.refusal?.(reqOf(JSON_PATH))).toBeUndefined();
    expect(geminiWire.refusal?.(reqOf('/v1beta/models/g:streamGenerateContent', { alt: 'sse' }))).toBeUndefined();
  });

  it.each([
    [{ contents: [user] }, true],
    [{ contents: [] }, false],
    [{ contents: [{ role: 'system', parts: [] }] }, false],
    [{ contents: [{ role: 'user', parts: 'hi' }] }, false],
    [{ contents: [user], toolConfig: { functionCallingConfig: { mode: 'NONE' } } }, false],
    [{ contents: [user], toolConfig: { functionCallingConfig: { mode: 'ANY' } } }, true],
    [{ messages: [user] }, false],
  ])('serves %j: %s', (body, served) => {
    expect(geminiWire.accepts(body)).toBe(served);
  });

  it("asks every turn with the client's fields and the binding's functions first, never the approval tool, no `stream` key", () => {
    const theirs = {
      functionDeclarations: [{ name: 'ask_user' }, { name: 'repo_read' }, { name: 'approve_tool_call' }],
    };
    const search = { googleSearch: {} };
    const opened = geminiWire.open(
      {
        contents: [user],
        systemInstruction: { parts: [{ text: 'be brief' }] },
        generationConfig: { thinkingConfig: { includeThoughts: true } },
        tools: [theirs, search, { functionDeclarations: [{ name: 'approve_tool_call' }] }],
      },
      loopSetup([loopTool('repo_read')]),
      reqOf('/v1beta/models/g:streamGenerateContent', { alt: 'sse' }),
    );
    const request = opened.conversation.request();
    expect(request.stream).toBe(true);
    expect(JSON.parse(request.json)).toEqual({
      contents: [user],
      systemInstruction: { parts: [{ text: 'be brief' }] },
      generationConfig: { thinkingConfig: { includeThoughts: true } },
      tools: [
        { functionDeclarations: [{ name: 'repo_read', parametersJsonSchema: { type: 'object' } }] },
        { functionDeclarations: [{ name: 'ask_user' }] },
        search,
      ],
    });
    expect([...opened.clientTools]).toEqual(['ask_user']);
    const plain = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH)).conversation.request();
    expect(plain).toEqual({ json: JSON.stringify({ contents: [user] }), stream: false });
  });

  it('offers the tools a search found as one more functionDeclarations tool', () => {
    const { conversation } = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH));
    conversation.offer([loopTool('found')]);
    expect(JSON.parse(conversation.request().json).tools).toEqual([
      { functionDeclarations: [{ name: 'found', parametersJsonSchema: { type: 'object' } }] },
    ]);
  });

  it('answers calls the model sent with ids by those ids, images beside the answers', () => {
    const { conversation, reader } = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH));
    const turn = reader.json({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'shot', args: {} } }] } }],
    });
    expect(turn.calls).toEqual([{ id: 'fc-1', name: 'shot', arguments: '{}', index: 0 }]);
    conversation.addOutput(turn, turn.calls);
    conversation.addOutcomes(turn.calls, [
      { kind: 'ok', text: 'a picture', images: [{ mimeType: 'image/png', data: 'AAAA' }] },
    ]);
    expect(conversation.items[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'fc-1', name: 'shot', response: { output: 'a picture' } } },
        { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
      ],
    });
    expect([...conversation.takenIds()]).toEqual(['fc-1']);
  });
});

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

const reader = {
  tool: 'approve_tool_call',
  tokens: new ApprovalTokens(Buffer.alloc(32, 7), 600),
  ledger: new ApprovalLedger(new MemoryStore(), 600),
};

describe('the Gemini wire, on any body it accepts', () => {
  it('opens a loop, asks its first turn and reads its history without throwing, whatever the parts hold', () => {
    const anything = fc.jsonValue({ maxDepth: 3 });
    const part = fc.oneof(
      anything,
      fc.record({ text: anything }, { requiredKeys: [] }),
      fc.record({
        functionCall: fc.oneof(
          anything,
          fc.record({ name: fc.oneof(anything, fc.constant('approve_tool_call')), args: anything, id: anything }),
        ),
      }),
      fc.record({
        functionResponse: fc.oneof(anything, fc.record({ name: anything, id: anything, response: anything })),
      }),
    );
    const content = fc.record({
      role: fc.constantFrom('user', 'model', undefined),
      parts: fc.array(part, { maxLength: 4 }),
    });
    const body = fc.record(
      {
        contents: fc.array(content, { minLength: 1, maxLength: 5 }),
        tools: fc.oneof(anything, fc.array(fc.record({ functionDeclarations: anything }), { maxLength: 2 })),
        toolConfig: anything,
      },
      { requiredKeys: ['contents'] },
    );
    fc.assert(
      fc.property(body, fc.boolean(), (drawn, streamed) => {
        if (!geminiWire.accepts(drawn)) return;
        const path = streamed ? '/v1beta/models/g:streamGenerateContent' : JSON_PATH;
        const setup = loopSetup([loopTool('repo_read')]);
        const opened = geminiWire.open(drawn, setup, reqOf(path, { alt: 'sse' }));
        expect(opened.conversation.request().stream).toBe(streamed);
        geminiWire.succeededIn(opened.conversation.history);
        geminiWire.restore(drawn, { ...setup.handBacks, answerIds: setup.answerIds });
        geminiWire.approvals?.settle(reader, reqOf(JSON_PATH), 'notes', drawn);
        for (const content of drawn.contents) elision.elide(content as Content, new Map());
      }),
      { numRuns: 300 },
    );
  });

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
