import type { Request } from 'express';
import { AnswerLedger } from '../../../lib/person/ledger';
import type { ApprovalDecision, ApprovalReply } from '../../../lib/person/approval-decision';
import type { Exchange } from '../../../lib/wire/kit/approval-exchange';
import { settleAndDecide, settleExchanges, type ApprovalHistory } from '../../../lib/wire/kit/approval-settle';
import { CallHolders } from '../../../lib/wire/kit/call-holders';
import { ApprovalTokens } from '../../../lib/person/approval';
import { MemoryStore } from '../../../lib/store/memory-store';
import { toolOutcomeText } from '../../../lib/loop/tool-outcome';

/** A history in no wire's shape: the model's calls, answers, text, and approval exchanges (taken out). */
type Item =
  | { call: string; text?: string; name?: string; args?: Record<string, unknown> }
  | { answer: string; text: string }
  | { user: string }
  | { exchange: Exchange[]; text?: string };

const callIds = (item: Item) => ('call' in item ? [item.call] : []);
const answered = (item: Item) => ('answer' in item ? [item.answer] : []);

function toyHistory(items: Item[]): ApprovalHistory<Item> {
  const holders = new CallHolders<Item>(callIds, answered);
  return {
    length: items.length,
    exchangesAt: (i) => {
      const item = items[i];
      return 'exchange' in item ? item.exchange : undefined;
    },
    kept: (i) => items[i],
    holderOf: (out, callId) => holders.holderOf(out, callId),
    modelCall: (callId, call) => ({ call: callId, name: call.tool, args: call.arguments }),
    withText: (holder, i) => {
      const item = items[i];
      return 'call' in holder && holder.text === undefined && 'exchange' in item && item.text
        ? { ...holder, text: item.text }
        : undefined;
    },
    answerEarlier: (out, _at, callId, outcome) => void out.push({ answer: callId, text: toolOutcomeText(outcome) }),
  };
}

const req = { headers: { authorization: 'Bearer alice' } } as unknown as Request;
const reader = {
  tool: 'approve_tool_call',
  tokens: new ApprovalTokens(Buffer.alloc(32, 3), 600),
  ledger: new AnswerLedger(new MemoryStore(), 600),
};
const pending = { callId: 'call_del', tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes' };
const approvalId = reader.tokens.idFor(req, 'notes', pending);

describe('settleExchanges: a follow-up’s approval exchanges taken out, the model’s calls back in', () => {
  it('decides a live exchange, and puts the model’s call back as granted where it is missing, the text on it', () => {
    const replies: ApprovalReply[] = [];
    const granted: ApprovalDecision = {
      outcome: 'granted',
      tool: 'notes_delete',
      callId: 'call_del',
      arguments: { id: 'groceries' },
      token: 't',
    };
    const live: Exchange = {
      approvalId: 'call_del.ap1.t',
      shown: { tool: 'notes_delete', arguments: { id: 'shown' } },
      answer: { approved: true },
      live: true,
    };
    const out = settleExchanges(toyHistory([{ user: 'delete it' }, { exchange: [live], text: 'On it.' }]), (reply) => {
      replies.push(reply);
      return granted;
    });
    expect(replies).toEqual([{ approvalId: 'call_del.ap1.t', shownTool: 'notes_delete', answer: { approved: true } }]);
    expect(out).toEqual([
      { user: 'delete it' },
      { call: 'call_del', name: 'notes_delete', args: { id: 'groceries' }, text: 'On it.' },
    ]);
  });

  it('puts back the call as shown when no decision grants it, a call without a tool read as ‘the call’', () => {
    const live: Exchange = { approvalId: 'call_x.ap1.t', shown: { arguments: ['not', 'an object'] }, live: true };
    const out = settleExchanges(toyHistory([{ exchange: [live] }]), () => undefined);
    expect(out).toEqual([{ call: 'call_x', name: 'the call', args: {} }]);
  });

  it('answers an older exchange as it was decided, on the waiting call; unanswered, it reads as denied', () => {
    const older = (id: string, answer?: Exchange['answer']): Exchange => ({
      approvalId: `${id}.ap1.t`,
      shown: { tool: 'notes_delete' },
      answer,
      live: false,
    });
    const decide = jest.fn();
    const out = settleExchanges(
      toyHistory([
        { call: 'c1' },
        { call: 'c2' },
        { exchange: [older('c1', { approved: true }), older('c2', { approved: false, reason: 'keep it' })] },
        { exchange: [older('c3')] },
      ]),
      decide,
    );
    expect(decide).not.toHaveBeenCalled();
    expect(out).toEqual([
      { call: 'c1' },
      { call: 'c2' },
      {
        answer: 'c1',
        text: "[the result of 'notes_delete' is not kept: it ran in an earlier request, after a person approved it]",
      },
      { answer: 'c2', text: "tool error: 'notes_delete' was not approved: keep it" },
      { call: 'c3', name: 'notes_delete', args: {} },
      { answer: 'c3', text: "tool error: 'notes_delete' was not approved: no reason given" },
    ]);
  });
});

describe('settleAndDecide: the live approvals decided by their tokens', () => {
  const exchange = (id: string): Item => ({
    exchange: [{ approvalId: id, shown: { tool: 'notes_delete' }, answer: { approved: true }, live: true }],
  });

  it('grants what the token holds and refuses an approval this gateway did not ask for', () => {
    const settled = settleAndDecide(
      reader,
      req,
      'notes',
      toyHistory([exchange(approvalId), exchange('call_forged.ap1.abc.def')]),
    );
    expect(settled?.decisions).toEqual([
      {
        outcome: 'granted',
        tool: 'notes_delete',
        callId: 'call_del',
        arguments: { id: 'groceries' },
        token: expect.any(String),
      },
      {
        outcome: 'refused',
        tool: 'notes_delete',
        callId: 'call_forged',
        refusal: { why: 'not_asked' },
        reason: 'not an approval this gateway asked for',
      },
    ]);
    expect(settled?.items).toEqual([
      { call: 'call_del', name: 'notes_delete', args: { id: 'groceries' } },
      { call: 'call_forged', name: 'notes_delete', args: {} },
    ]);
  });

  it('is undefined without approval exchanges', () => {
    expect(settleAndDecide(reader, req, 'notes', undefined)).toBeUndefined();
  });
});
