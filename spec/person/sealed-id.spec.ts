import type { IncomingMessage } from 'node:http';
import { callIdBefore, SealedIds } from '../../lib/person/sealed-id';

class Ids extends SealedIds<{ callId: string; tool: string; note: string }> {
  idFor(req: IncomingMessage, binding: string, sealed: { callId: string; tool: string; note: string }) {
    return this.sealedId(req, binding, sealed);
  }
}

describe('SealedIds: a question to the person as the id of the call that asks it', () => {
  const key = Buffer.alloc(32, 7);
  const req = { headers: { authorization: 'Bearer a' } } as IncomingMessage;
  const other = { headers: { authorization: 'Bearer b' } } as IncomingMessage;
  const ids = new Ids(key, 60, '.xx1.', 'input', 4096);

  it('names the model’s call id before its tag, and only for an id that has one', () => {
    expect(callIdBefore('.xx1.', 'call_1.xx1.abc')).toBe('call_1');
    expect(callIdBefore('.xx1.', '.xx1.abc')).toBeUndefined();
    expect(callIdBefore('.xx1.', 42)).toBeUndefined();
    expect(ids.callIdOf('call_1')).toBeUndefined();
  });

  it('opens for the same binding and client only, and not when moved to another call or tampered with', () => {
    const id = ids.idFor(req, 'pay', { callId: 'call_1', tool: 'pay', note: 'n' });
    expect(id.startsWith('call_1.xx1.')).toBe(true);
    const read = ids.read(req, 'pay', id);
    expect('opened' in read && read.opened).toEqual({ callId: 'call_1', tool: 'pay', note: 'n' });
    expect(ids.read(other, 'pay', id)).toEqual({ failed: 'invalid' });
    expect(ids.read(req, 'shop', id)).toEqual({ failed: 'invalid' });
    expect(ids.read(req, 'pay', id.replace('call_1', 'call_2'))).toEqual({ failed: 'invalid' });
    expect(ids.read(req, 'pay', 'call_1')).toEqual({ failed: 'invalid' });
    expect(ids.read(req, 'pay', `call_1.xx1.${'a'.repeat(5000)}`)).toEqual({ failed: 'invalid' });
  });

  it('expires after its ttlSec', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const id = ids.idFor(req, 'pay', { callId: 'call_1', tool: 'pay', note: 'n' });
      jest.setSystemTime(1_000_000 + 61_000);
      expect(ids.read(req, 'pay', id)).toEqual({ failed: 'expired' });
    } finally {
      jest.useRealTimers();
    }
  });
});
