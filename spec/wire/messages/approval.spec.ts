import type { Request } from 'express';
import { AnswerLedger } from '../../../lib/person/ledger';
import { MemoryStore } from '../../../lib/store/memory-store';
import { ApprovalTokens } from '../../../lib/person/approval';
import { settleApprovals } from '../../../lib/wire/messages/approval';

const key = Buffer.alloc(32, 7);
const reader = {
  tool: 'approve_tool_call',
  tokens: new ApprovalTokens(key, 600),
  ledger: new AnswerLedger(new MemoryStore(), 600),
};
const req = { headers: {} } as Request;
const approvalId = reader.tokens.idFor(req, 'notes', {
  callId: 'toolu_del',
  tool: 'notes_delete',
  arguments: { id: 'groceries' },
  reason: 'it deletes',
});
const user = { role: 'user', content: 'delete the groceries' };
const work = [
  {
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'toolu_open', name: 'notes_open', input: {} },
      { type: 'tool_use', id: 'toolu_del', name: 'notes_delete', input: { id: 'groceries' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_open', content: 'note ids: groceries' }] },
];
const asked = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'On it.' },
    {
      type: 'tool_use',
      id: approvalId,
      name: 'approve_tool_call',
      input: { tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes' },
    },
  ],
};
const answered = (content: string) => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: approvalId, content }],
});

describe('Messages approval exchanges (tool_use of the approval tool, tool_result)', () => {
  it('takes the latest exchange out, the text back on the model’s message, and decides it', () => {
    const settled = settleApprovals(reader, req, 'notes', [user, ...work, asked, answered('{"approved":true}')]);
    expect(settled?.messages).toEqual([
      user,
      { ...work[0], content: [{ type: 'text', text: 'On it.' }, ...work[0].content] },
      work[1],
    ]);
    expect(settled?.decisions).toEqual([
      {
        outcome: 'granted',
        tool: 'notes_delete',
        callId: 'toolu_del',
        arguments: { id: 'groceries' },
        token: expect.any(String),
      },
    ]);
  });

  it('answers an older, denied exchange beside the turn’s other results, as an error', () => {
    const settled = settleApprovals(reader, req, 'notes', [
      user,
      ...work,
      asked,
      answered('{"approved":false,"reason":"keep it"}'),
      { role: 'assistant', content: 'Kept.' },
      user,
    ]);
    expect(settled?.decisions).toEqual([]);
    expect(settled?.messages[2]).toEqual({
      role: 'user',
      content: [
        work[1].content[0],
        {
          type: 'tool_result',
          tool_use_id: 'toolu_del',
          content: "tool error: 'notes_delete' was not approved: keep it",
          is_error: true,
        },
      ],
    });
  });
});
