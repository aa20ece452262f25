import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import type { Request } from 'express';
import { z } from 'zod';
import { AnswerLedger } from '../../../lib/person/ledger';
import { ApprovalTokens } from '../../../lib/person/approval';
import { MemoryStore } from '../../../lib/store/memory-store';
import { settleApprovals } from '../../../lib/wire/gemini/approval';
import { geminiRig, type GeminiGateway } from '../../e2e/gemini-gateway';

const IDS = 'note ids: groceries';
const model = 'gemini-2.5-flash';
const notes = { name: 'notes', match: { model: 'gemini-*' }, hierarchy: ['notes_open', 'notes_delete'] };
const judge = {
  rules: [
    {
      surface: 'tool_call' as const,
      when: { annotation: 'destructiveHint' },
      action: 'ask' as const,
      reason: 'it deletes a note',
    },
  ],
};
const tools = [
  {
    functionDeclarations: [
      {
        name: 'approve_tool_call',
        description: 'Ask the user to approve a tool call.',
        parametersJsonSchema: {
          type: 'object',
          properties: { tool: { type: 'string' }, arguments: { type: 'object' }, reason: { type: 'string' } },
        },
      },
    ],
  },
];
const question: GenAI.Content = { role: 'user', parts: [{ text: 'open my notes and delete the groceries' }] };
/** turn 1: a read-only call and a destructive one together (parallel: only the first signed); then the model's final word */
const script = [
  { text: 'On it.', calls: [{ name: 'notes_open' }, { name: 'notes_delete', args: { id: 'groceries' } }] },
  { text: 'Done.' },
];

describe('approvals on Gemini: a functionCall of the approval tool out, its functionResponse in (@google/genai, real MCP server)', () => {
  const rig = geminiRig();
  beforeEach(() => {
    rig.mcp.setTool({
      name: 'notes_open',
      description: 'Open the notebook.',
      annotations: { readOnlyHint: true },
      handler: () => ({ content: [{ type: 'text', text: IDS }] }),
    });
    rig.mcp.setTool({
      name: 'notes_delete',
      description: 'Delete a note.',
      args: { id: z.string() },
      annotations: { destructiveHint: true },
      handler: ({ id }) => ({ content: [{ type: 'text', text: `deleted ${String(id)}` }] }),
    });
  });
  const deletes = () => rig.mcp.calls.filter((call) => call.name === 'notes_delete');
  const ask = async (gw: GeminiGateway, contents: GenAI.Content[]) =>
    (await gw.genai.models.generateContent({ model, contents, config: { tools } })).candidates?.[0]?.content;

  async function handedBack(gw: GeminiGateway) {
    const handed = (await ask(gw, [question])) as GenAI.Content;
    const call = handed.parts?.find((part) => part.functionCall)?.functionCall as GenAI.FunctionCall;
    return { handed, call };
  }
  const answering = (handed: GenAI.Content, call: GenAI.FunctionCall, output: unknown): GenAI.Content[] => [
    question,
    handed,
    { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output } } }] },
  ];

  it('hands the destructive call to the approval tool after running the other; approved, it runs beside it, the model content sent back exactly', async () => {
    const gw = await rig.gateway(script, { bindings: [notes], judge });
    const { handed, call } = await handedBack(gw);
    expect(call.name).toBe('approve_tool_call');
    expect(call.args).toEqual({ tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes a note' });
    expect(call.id).toMatch(/\.ap1\.[\w.-]+\.al1\./);
    expect(handed.parts?.[0]).toEqual({ text: 'On it.' });
    expect(rig.mcp.calls.map((made) => made.name)).toEqual(['notes_open']);

    const answer = await ask(gw, answering(handed, call, { approved: true }));
    expect(answer?.parts).toEqual([{ text: 'Done.' }]);
    expect(deletes()).toEqual([{ name: 'notes_delete', args: { id: 'groceries' } }]);
    expect(rig.upstream.requests).toHaveLength(2);
    const [, followUp] = rig.upstream.requests;
    expect(followUp.refused).toBeUndefined();
    expect(followUp.body.contents).toEqual([
      question,
      {
        role: 'model',
        parts: [
          { text: 'On it.' },
          { functionCall: { name: 'notes_open', args: {} }, thoughtSignature: expect.any(String) },
          { functionCall: { name: 'notes_delete', args: { id: 'groceries' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'notes_open', response: { output: IDS } } },
          { functionResponse: { name: 'notes_delete', response: { output: 'deleted groceries' } } },
        ],
      },
    ]);
  });

  it('denied, the model reads why beside the turn’s other answer and goes on; the call never runs', async () => {
    const gw = await rig.gateway(script, { bindings: [notes], judge });
    const { handed, call } = await handedBack(gw);
    await ask(gw, answering(handed, call, { approved: false, reason: 'keep my groceries' }));
    expect(deletes()).toEqual([]);
    const [, followUp] = rig.upstream.requests;
    expect(followUp.refused).toBeUndefined();
    expect(followUp.body.contents[2].parts).toEqual([
      { functionResponse: { name: 'notes_open', response: { output: IDS } } },
      {
        functionResponse: {
          name: 'notes_delete',
          response: { error: "tool error: 'notes_delete' was not approved: keep my groceries" },
        },
      },
    ]);
  });
});

describe('approvals on Gemini, one after another (@google/genai)', () => {
  const rig = geminiRig();
  beforeEach(() => {
    rig.mcp.setTool({
      name: 'notes_delete',
      description: 'Delete a note.',
      args: { id: z.string() },
      annotations: { destructiveHint: true },
      handler: ({ id }) => ({ content: [{ type: 'text', text: `deleted ${String(id)}` }] }),
    });
  });

  it('a denied call, then the same tool asked again: each call answered once, the earlier one from the carried work', async () => {
    const gw = await rig.gateway(
      [
        { calls: [{ name: 'notes_delete', args: { id: 'groceries' } }] },
        { calls: [{ name: 'notes_delete', args: { id: 'old' } }] },
        { text: 'Done.' },
      ],
      { bindings: [{ ...notes, hierarchy: ['notes_delete'] }], judge },
    );
    const ask = async (contents: GenAI.Content[]) =>
      (await gw.genai.models.generateContent({ model, contents, config: { tools } })).candidates?.[0]
        ?.content as GenAI.Content;
    const follow = (earlier: GenAI.Content[], handed: GenAI.Content, output: unknown): GenAI.Content[] => {
      const call = handed.parts?.find((part) => part.functionCall)?.functionCall as GenAI.FunctionCall;
      return [
        ...earlier,
        handed,
        { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output } } }] },
      ];
    };
    const first = await ask([question]);
    const denied = follow([question], first, { approved: false, reason: 'keep it' });
    const second = await ask(denied);
    expect(second.parts?.find((part) => part.functionCall)?.functionCall?.args).toMatchObject({
      arguments: { id: 'old' },
    });
    const answer = await ask(follow(denied, second, { approved: true }));
    expect(answer.parts).toEqual([{ text: 'Done.' }]);
    expect(rig.upstream.requests.map((request) => request.refused)).toEqual([undefined, undefined, undefined]);
    expect(rig.upstream.requests[2].body.contents.slice(1).map((content) => content.parts.length)).toEqual([
      1, 1, 1, 1,
    ]);
    expect(rig.mcp.calls).toEqual([{ name: 'notes_delete', args: { id: 'old' } }]);
  });
});

describe('Gemini approval exchanges, settled', () => {
  const reader = {
    tool: 'approve_tool_call',
    tokens: new ApprovalTokens(Buffer.alloc(32, 7), 600),
    ledger: new AnswerLedger(new MemoryStore(), 600),
  };
  const req = { headers: {} } as Request;
  const approvalId = reader.tokens.idFor(req, 'notes', {
    callId: 'call_loop_1_1',
    tool: 'notes_delete',
    arguments: { id: 'groceries' },
    reason: 'it deletes',
  });
  const user = { role: 'user', parts: [{ text: 'delete the groceries' }] };
  const modelTurn = {
    role: 'model',
    parts: [
      { functionCall: { name: 'notes_open', args: {} }, thoughtSignature: 'sig' },
      { functionCall: { name: 'notes_delete', args: { id: 'groceries' } } },
    ],
  };
  const openAnswer = { functionResponse: { name: 'notes_open', response: { output: IDS } } };
  const asked = {
    role: 'model',
    parts: [
      {
        functionCall: {
          id: approvalId,
          name: 'approve_tool_call',
          args: { tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes' },
        },
      },
    ],
  };
  const answered = (response: Record<string, unknown>) => ({
    role: 'user',
    parts: [{ functionResponse: { id: approvalId, name: 'approve_tool_call', response } }],
  });

  it('reads an older exchange as what it decided, its answer beside the turn’s other answers', () => {
    const later = { role: 'model', parts: [{ text: 'Deleted.' }] };
    const settled = settleApprovals(reader, req, 'notes', [
      user,
      modelTurn,
      { role: 'user', parts: [openAnswer] },
      asked,
      answered({ output: '{"approved": false, "reason": "no"}' }),
      later,
      { role: 'user', parts: [{ text: 'thanks' }] },
    ]);
    expect(settled?.decisions).toEqual([]);
    expect(settled?.contents).toEqual([
      user,
      modelTurn,
      {
        role: 'user',
        parts: [
          openAnswer,
          {
            functionResponse: {
              name: 'notes_delete',
              response: { error: "tool error: 'notes_delete' was not approved: no" },
            },
          },
        ],
      },
      later,
      { role: 'user', parts: [{ text: 'thanks' }] },
    ]);
  });

  it('puts the shown call back where the record of the model’s content did not come back, with Google’s sentinel signature', () => {
    const settled = settleApprovals(reader, req, 'notes', [user, asked, answered({ output: { approved: true } })]);
    expect(settled?.contents).toEqual([
      user,
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'notes_delete', args: { id: 'groceries' } },
            thoughtSignature: 'skip_thought_signature_validator',
          },
        ],
      },
    ]);
    expect(settled?.decisions).toMatchObject([{ outcome: 'granted', tool: 'notes_delete' }]);
  });

  it('answers an ask the client sent twice once, by its last copy: the earlier copy adds no answer of its own', () => {
    const settled = settleApprovals(reader, req, 'notes', [
      user,
      modelTurn,
      { role: 'user', parts: [openAnswer] },
      asked,
      asked,
    ]);
    expect(settled?.contents).toEqual([user, modelTurn, { role: 'user', parts: [openAnswer] }]);
    expect(settled?.decisions).toHaveLength(1);
  });

  it('leaves contents without an exchange alone', () => {
    expect(settleApprovals(reader, req, 'notes', [user, modelTurn])).toBeUndefined();
  });
});
