import type { Request } from 'express';
import { settleApprovals } from '../../../lib/wire/chat/approval';
import { AnswerLedger } from '../../../lib/person/ledger';
import { MemoryStore } from '../../../lib/store/memory-store';
import { ApprovalTokens } from '../../../lib/person/approval';
import type { ChatMessage } from '../../../lib/types';

const req = { headers: {} } as Request;
const reader = {
  tool: 'approve_tool_call',
  tokens: new ApprovalTokens(Buffer.alloc(32, 9), 600),
  ledger: new AnswerLedger(new MemoryStore(), 600),
};
const approvalId = reader.tokens.idFor(req, 'notes', {
  callId: 'call_del',
  tool: 'notes_delete',
  arguments: { id: 'groceries' },
  reason: 'it deletes',
});
const user: ChatMessage = { role: 'user', content: 'delete the groceries' };
const work: ChatMessage[] = [
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_open', type: 'function', function: { name: 'notes_open', arguments: '{}' } },
      { id: 'call_del', type: 'function', function: { name: 'notes_delete', arguments: '{"id":"groceries"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_open', content: 'note ids: groceries' },
];
const asked: ChatMessage = {
  role: 'assistant',
  content: 'On it.',
  tool_calls: [
    {
      id: approvalId,
      type: 'function',
      function: { name: 'approve_tool_call', arguments: '{"tool":"notes_delete","arguments":{"id":"groceries"}}' },
    },
  ],
};
const answered = (content: string): ChatMessage => ({ role: 'tool', tool_call_id: approvalId, content });

describe('settleApprovals: the approval exchanges of a chat follow-up, read back', () => {
  it('takes the latest exchange out, the text back on the model’s message, and decides it', () => {
    const settled = settleApprovals(reader, req, 'notes', [user, ...work, asked, answered('{"approved":true}')]);
    expect(settled?.messages).toEqual([user, { ...work[0], content: 'On it.' }, work[1]]);
    expect(settled?.decisions).toEqual([
      {
        outcome: 'granted',
        tool: 'notes_delete',
        callId: 'call_del',
        arguments: { id: 'groceries' },
        token: expect.any(String),
      },
    ]);
  });

  it('answers an older, denied exchange with what it decided, and decides nothing again', () => {
    const settled = settleApprovals(reader, req, 'notes', [
      user,
      ...work,
      asked,
      answered('{"approved":false,"reason":"keep it"}'),
      { role: 'assistant', content: 'Kept.' },
      user,
    ]);
    expect(settled?.decisions).toEqual([]);
    expect(settled?.messages).toEqual([
      user,
      { ...work[0], content: 'On it.' },
      work[1],
      { role: 'tool', tool_call_id: 'call_del', content: "tool error: 'notes_delete' was not approved: keep it" },
      { role: 'assistant', content: 'Kept.' },
      user,
    ]);
  });

  it('says an older approved call is not kept, and leaves a conversation without exchanges alone', () => {
    const settled = settleApprovals(reader, req, 'notes', [
      user,
      ...work,
      asked,
      answered('{"approved":true}'),
      { role: 'assistant', content: 'Deleted.' },
      user,
    ]);
    expect(settled?.messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_del',
      content: "[the result of 'notes_delete' is not kept: it ran in an earlier request, after a person approved it]",
    });
    expect(settleApprovals(reader, req, 'notes', [user, ...work])).toBeUndefined();
  });
});
