import type { Request } from 'express';
import { AnswerLedger, recordedDecisions } from '../../lib/person/ledger';
import { MemoryStore } from '../../lib/store/memory-store';
import {
  answerOf,
  approvedCall,
  decideApproval,
  earlierDecision,
  recordedAnswers,
  type PersonDecision,
} from '../../lib/person/approval-decision';
import { toolOutcomeText } from '../../lib/loop/tool-outcome';
import { ApprovalTokens } from '../../lib/person/approval';

const req = { headers: { authorization: 'Bearer alice' } } as unknown as Request;
const reader = () => ({
  tool: 'approve_tool_call',
  tokens: new ApprovalTokens(Buffer.alloc(32, 5), 600),
  ledger: new AnswerLedger(new MemoryStore(), 600),
});
const already = { refusal: { why: 'already_answered' }, reason: 'already answered' };
const pending = { callId: 'call_del', tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes' };

describe('a person’s answer to an approval', () => {
  it.each([
    ['{"approved":true}', { approved: true }],
    [[{ type: 'text', text: ' {"approved": true} ' }], { approved: true }],
    ['{"approved":false,"reason":" keep it "}', { approved: false, reason: 'keep it' }],
    ['{"approved":"yes"}', { approved: false, reason: 'no reason given' }],
    ['not today', { approved: false, reason: 'not today' }],
    ['', { approved: false, reason: 'no reason given' }],
  ])('%j reads as %j', (content, answer) => {
    expect(answerOf(content)).toEqual(answer);
  });

  it('cuts a plain-text reason at 500 characters', () => {
    expect(answerOf('n'.repeat(600))).toEqual({ approved: false, reason: 'n'.repeat(500) });
  });
});

describe('decideApproval: only what the token holds runs, once', () => {
  it('grants the sealed call with the arguments the person saw, once recorded; the same answer again is refused', async () => {
    const r = reader();
    const id = r.tokens.idFor(req, 'notes', pending);
    const granted = decideApproval(r, req, 'notes', id, 'notes_delete', { approved: true });
    expect(granted).toEqual({
      outcome: 'granted',
      tool: 'notes_delete',
      callId: 'call_del',
      arguments: { id: 'groceries' },
      token: expect.any(String),
    });
    expect(approvedCall(granted as Extract<typeof granted, { outcome: 'granted' }>)).toEqual({
      id: 'call_del',
      name: 'notes_delete',
      arguments: '{"id":"groceries"}',
      index: 0,
    });
    expect(await recordedDecisions(r.ledger, [granted])).toEqual([granted]);
    const again = decideApproval(r, req, 'notes', id, 'notes_delete', { approved: true });
    expect(await recordedDecisions(r.ledger, [again])).toEqual([
      {
        outcome: 'refused',
        tool: 'notes_delete',
        callId: 'call_del',
        refusal: { why: 'already_answered' },
        reason: 'already answered',
      },
    ]);
    const denial = decideApproval(r, req, 'notes', id, 'notes_delete', { approved: false, reason: 'no' });
    expect(await recordedDecisions(r.ledger, [denial])).toMatchObject([
      { outcome: 'refused', reason: 'already answered' },
    ]);
  });

  it('does not honour an answer the store cannot record, so nothing can run twice', async () => {
    const unreachable = new MemoryStore();
    unreachable.set = () => Promise.reject(new Error('store set failed: the connection closed'));
    const r = { ...reader(), ledger: new AnswerLedger(unreachable, 600) };
    const granted = decideApproval(r, req, 'notes', r.tokens.idFor(req, 'notes', pending), 'notes_delete', {
      approved: true,
    });
    const noAnswer = decideApproval(r, req, 'notes', r.tokens.idFor(req, 'notes', pending), 'notes_delete', undefined);
    expect(await recordedDecisions(r.ledger, [granted, noAnswer])).toEqual([
      {
        outcome: 'refused',
        tool: 'notes_delete',
        callId: 'call_del',
        refusal: { why: 'unrecorded' },
        reason: 'the answer could not be recorded (the store is unreachable)',
      },
      noAnswer,
    ]);
  });

  it('denies with the reason, or for want of an answer; refuses a token that does not open, naming the tool shown', () => {
    const r = reader();
    const id = r.tokens.idFor(req, 'notes', pending);
    expect(decideApproval(r, req, 'notes', id, 'notes_delete', undefined)).toMatchObject({
      outcome: 'denied',
      tool: 'notes_delete',
      reason: 'no answer came',
    });
    expect(decideApproval(r, req, 'notes', id, 'notes_delete', { approved: false, reason: 'keep it' })).toMatchObject({
      outcome: 'denied',
      callId: 'call_del',
      reason: 'keep it',
    });
    expect(decideApproval(r, req, 'other', id, 'shown_tool', { approved: true })).toMatchObject({
      outcome: 'refused',
      tool: 'shown_tool',
      callId: 'call_del',
      reason: 'not an approval this gateway asked for',
    });
  });
});

describe('earlierDecision: an approval decided in an earlier request, as the model reads it', () => {
  it('says an approved call is not kept, and a denied one why', () => {
    expect(toolOutcomeText(earlierDecision('notes_delete', { approved: true }))).toBe(
      "[the result of 'notes_delete' is not kept: it ran in an earlier request, after a person approved it]",
    );
    expect(toolOutcomeText(earlierDecision('notes_delete', { approved: false, reason: 'keep it' }))).toBe(
      "tool error: 'notes_delete' was not approved: keep it",
    );
  });
});

describe('recordedAnswers: each answer in the ledger of its kind', () => {
  it('refuses a question answered twice as a question (input: true), an approval answered twice as an approval', async () => {
    const r = reader();
    const input = { tool: 'answer_tool_question', maxRounds: 3, ledger: new AnswerLedger(new MemoryStore(), 600) };
    const withInput = { ...r, input } as unknown as Parameters<typeof recordedAnswers>[0];
    const answered = { outcome: 'answered', tool: 'profile', callId: 'call_p', arguments: {}, token: 'q-token' };
    const granted = decideApproval(r, req, 'notes', r.tokens.idFor(req, 'notes', pending), 'notes_delete', {
      approved: true,
    });
    const decisions = [granted, answered] as PersonDecision[];
    expect(await recordedAnswers(withInput, decisions)).toEqual(decisions);
    expect(await recordedAnswers(withInput, decisions)).toEqual([
      { outcome: 'refused', tool: 'notes_delete', callId: 'call_del', ...already },
      { outcome: 'refused', tool: 'profile', callId: 'call_p', ...already, input: true },
    ]);
  });
});
