import type { IncomingMessage } from 'node:http';
import { inputCallId, InputTokens, type SealedInput } from '../../lib/person/input';

describe('InputTokens: a tool’s question sealed in the id of the call to the input tool', () => {
  const sealed: SealedInput = {
    callId: 'call_pay',
    tool: 'pay',
    arguments: { amount: 5 },
    key: 'confirm',
    keys: ['confirm'],
    question: { tool: 'pay', message: 'Pay?', mode: 'form', requestedSchema: { type: 'object' } },
    requestState: 'pay:5',
    answered: {},
    round: 1,
    group: 'g',
  };

  it('seals the call, the question and the state, for this client, as `<call id>.in1.<token>`', () => {
    const tokens = new InputTokens(Buffer.alloc(32, 1), 600);
    const req = { headers: {} } as IncomingMessage;
    const id = tokens.idFor(req, 'payments', sealed);
    expect(inputCallId(id)).toBe('call_pay');
    expect(inputCallId('call_pay.ap1.x')).toBeUndefined();
    const read = tokens.read(req, 'payments', id);
    expect('opened' in read && read.opened).toEqual(sealed);
    expect(tokens.read(req, 'other', id)).toEqual({ failed: 'invalid' });
  });
});
