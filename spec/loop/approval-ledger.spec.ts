import { ApprovalLedger } from '../../lib/loop/approval-ledger';

describe('ApprovalLedger: an approval answered twice decides nothing the second time', () => {
  afterEach(() => jest.useRealTimers());

  it('takes the first answer of a token, refuses every later one while the token could still open', () => {
    jest.useFakeTimers();
    const ledger = new ApprovalLedger(60);
    expect(ledger.answer('token-a')).toBe(true);
    expect(ledger.answer('token-a')).toBe(false);
    expect(ledger.answer('token-b')).toBe(true);
    jest.advanceTimersByTime(59_000);
    expect(ledger.answer('token-a')).toBe(false);
  });

  it('forgets a token once it could no longer open anyway (its ttl passed)', () => {
    jest.useFakeTimers();
    const ledger = new ApprovalLedger(60);
    ledger.answer('token-a');
    jest.advanceTimersByTime(60_001);
    expect(ledger.answer('token-a')).toBe(true);
  });
});
