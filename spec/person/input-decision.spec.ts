import type { Request } from 'express';
import { AnswerLedger } from '../../lib/person/ledger';
import { decideInput, type InputReader } from '../../lib/person/input-decision';
import { InputTokens, type SealedInput } from '../../lib/person/input';
import { MemoryStore } from '../../lib/store/memory-store';

describe('decideInput: the answer to one of this gateway’s questions, by the question’s id', () => {
  const tokens = new InputTokens(Buffer.alloc(32, 3), 60);
  const reader: InputReader = {
    tool: 'ask_user',
    maxRounds: 3,
    tokens,
    ledger: new AnswerLedger(new MemoryStore(), 60),
  };
  const req = { headers: {} } as Request;
  const sealed: SealedInput = {
    callId: 'call_pay',
    tool: 'pay',
    arguments: { amount: 5 },
    key: 'confirm',
    keys: ['confirm'],
    question: { tool: 'pay', message: 'Pay?', mode: 'url', url: 'https://x' },
    answered: {},
    round: 1,
    group: 'g',
  };

  it('opens the sealed call: only what the token holds runs', () => {
    const id = tokens.idFor(req, 'payments', sealed);
    const decision = decideInput(reader, req, 'payments', id, 'shown', { action: 'accept' });
    expect(decision).toMatchObject({
      outcome: 'answered',
      tool: 'pay',
      callId: 'call_pay',
      arguments: { amount: 5 },
      sealed,
    });
  });

  it('refuses a question it did not ask, and one answered after it expired', () => {
    expect(decideInput(reader, req, 'payments', 'call_pay.in1.forged', 'pay', {})).toEqual({
      outcome: 'refused',
      input: true,
      tool: 'pay',
      callId: 'call_pay',
      refusal: { why: 'not_asked' },
      reason: 'not a question this gateway asked',
    });
    jest.useFakeTimers({ now: 5_000_000 });
    try {
      const id = tokens.idFor(req, 'payments', sealed);
      jest.setSystemTime(5_000_000 + 61_000);
      expect(decideInput(reader, req, 'payments', id, 'pay', {})).toMatchObject({
        outcome: 'expired',
        refusal: { why: 'expired', ttlSec: 60 },
      });
    } finally {
      jest.useRealTimers();
    }
  });
});
