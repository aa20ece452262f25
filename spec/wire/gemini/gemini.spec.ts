import type { Request } from 'express';
import { geminiWire } from '../../../lib/wire/gemini/gemini';
import { wellFormedResponse } from '../../../lib/wire/gemini/model-reply';
import { addUsageMetadata } from '../../../lib/wire/gemini/usage';
import { geminiHistory } from '../../../lib/wire/gemini/conversation';
import { succeededIn } from '../../../lib/hierarchy';
import { chatTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', parts: [{ text: 'hi' }] };
const reqOf = (path: string, query: Record<string, string> = {}) => ({ path, query }) as unknown as Request;
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
      loopSetup([chatTool('repo_read')]),
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
    conversation.offer([chatTool('found')]);
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

  it('reads what a trusted history says ran well: a response with `error` failed', () => {
    const history = [
      user,
      { role: 'model', parts: [{ functionCall: { name: 'a' } }, { functionCall: { name: 'b' } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'a', response: { output: 'fine' } } },
          { functionResponse: { name: 'b', response: { error: 'tool error: no' } } },
        ],
      },
    ];
    expect([...succeededIn(geminiHistory(history))]).toEqual(['a']);
    expect([...geminiWire.succeededIn(history)]).toEqual(['a']);
  });
});

describe("the Gemini model's reply", () => {
  it.each([
    [{ promptFeedback: { blockReason: 'SAFETY' } }, 'the prompt was blocked: SAFETY'],
    [{ candidates: [] }, 'the reply is not a GenerateContentResponse'],
    [{ candidates: [{ content: { parts: {} } }] }, "the reply's candidate content has no list of parts"],
    [{ candidates: [{ content: { parts: [7] } }] }, "the reply's a part is not an object: 7"],
  ])('refuses %j', (reply, message) => {
    expect(() => wellFormedResponse(reply)).toThrow(message);
  });

  it('reads a candidate stopped without content as no text and no call', () => {
    const { reader } = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH));
    expect(reader.json({ candidates: [{ finishReason: 'SAFETY' }] })).toMatchObject({
      text: '',
      calls: [],
      stop: 'SAFETY',
    });
  });

  it('sums usageMetadata over turns, a field once a turn reported it', () => {
    const once = addUsageMetadata(undefined, { promptTokenCount: 3, totalTokenCount: 5 });
    expect(addUsageMetadata(once, { promptTokenCount: 4, thoughtsTokenCount: 2, totalTokenCount: 9 })).toEqual({
      promptTokenCount: 7,
      thoughtsTokenCount: 2,
      totalTokenCount: 14,
    });
    expect(addUsageMetadata(once, undefined)).toBe(once);
  });
});
