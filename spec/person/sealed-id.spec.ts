import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { MAX_REPLAY_BYTES } from '../../lib/code-mode/replay-log';
import { INPUT, type SealedKind } from '../../lib/person/question';
import { callIdBefore, SealedIds } from '../../lib/person/sealed-id';

/** a kind of question of the spec's own: one record says its tag, its tokens and how much it seals */
const NOTE = { ...INPUT, tag: '.xx1.', maxBytes: 1024 } satisfies SealedKind;

class Ids extends SealedIds<{ callId: string; tool: string; note: string }> {
  idFor(req: IncomingMessage, binding: string, sealed: { callId: string; tool: string; note: string }) {
    return this.sealedId(req, binding, sealed);
  }
}

describe('SealedIds: a question to the person as the id of the call that asks it', () => {
  const key = Buffer.alloc(32, 7);
  const req = { headers: { authorization: 'Bearer a' } } as IncomingMessage;
  const other = { headers: { authorization: 'Bearer b' } } as IncomingMessage;
  const ids = new Ids(key, 60, NOTE);

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
    const tooLong = 'a'.repeat(2 * (NOTE.maxBytes + MAX_REPLAY_BYTES) + 1);
    expect(ids.read(req, 'pay', `call_1.xx1.${tooLong}`)).toEqual({ failed: 'invalid' });
  });

  it('reads no token longer than its kind seals, a nested call’s program log included', () => {
    const note = randomBytes(2 * (NOTE.maxBytes + MAX_REPLAY_BYTES)).toString('base64');
    const id = ids.idFor(req, 'pay', { callId: 'call_1', tool: 'pay', note });
    expect(id.length - 'call_1.xx1.'.length).toBeGreaterThan(2 * (NOTE.maxBytes + MAX_REPLAY_BYTES));
    expect(ids.read(req, 'pay', id)).toEqual({ failed: 'invalid' });
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
