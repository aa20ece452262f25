import type { Content } from '../../../lib/wire/gemini/types';
import type { Request } from 'express';
import fc from 'fast-check';
import { AnswerLedger } from '../../../lib/person/ledger';
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

const reader = {
  tool: 'approve_tool_call',
  tokens: new ApprovalTokens(Buffer.alloc(32, 7), 600),
  ledger: new AnswerLedger(new MemoryStore(), 600),
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
});
