import type { IncomingMessage } from 'node:http';
import { ApprovalTokens, approvedCallId, MAX_APPROVAL_ARGUMENTS_BYTES } from '../../lib/person/approval';

const tokens = new ApprovalTokens(Buffer.alloc(32, 3), 600);
const alice = { headers: { authorization: 'Bearer alice' } } as unknown as IncomingMessage;
const bob = { headers: { authorization: 'Bearer bob' } } as unknown as IncomingMessage;
const pending = {
  callId: 'call_del',
  tool: 'notes_delete',
  arguments: { id: 'groceries' },
  reason: "binding 'notes' requires approval for 'notes_delete'",
};

describe("an approval's token: the call waiting, sealed in the id of the approval call", () => {
  afterEach(() => jest.useRealTimers());

  it('opens for the binding and the client that asked, naming the model’s call id', () => {
    const id = tokens.idFor(alice, 'notes', pending);
    expect(id.startsWith('call_del.ap1.')).toBe(true);
    expect(approvedCallId(id)).toBe('call_del');
    const read = tokens.read(alice, 'notes', id);
    expect(read).toEqual({ opened: pending, token: id.slice('call_del.ap1.'.length) });
  });

  it('does not open for another client, another binding, another call, or an id that is no approval’s', () => {
    const id = tokens.idFor(alice, 'notes', pending);
    expect(tokens.read(bob, 'notes', id)).toEqual({ failed: 'invalid' });
    expect(tokens.read(alice, 'other', id)).toEqual({ failed: 'invalid' });
    expect(tokens.read(alice, 'notes', id.replace('call_del', 'call_other'))).toEqual({ failed: 'invalid' });
    expect(tokens.read(alice, 'notes', 'call_del')).toEqual({ failed: 'invalid' });
    expect(tokens.read(alice, 'notes', `call_del.ap1.${'x'.repeat(2 * MAX_APPROVAL_ARGUMENTS_BYTES + 1)}`)).toEqual({
      failed: 'invalid',
    });
    expect([approvedCallId('call_1'), approvedCallId('.ap1.x'), approvedCallId(7)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('opens for the same key however the client sends it (bearer or x-api-key)', () => {
    const id = tokens.idFor(alice, 'notes', pending);
    const asApiKey = { headers: { 'x-api-key': 'alice' } } as unknown as IncomingMessage;
    expect(tokens.read(asApiKey, 'notes', id)).toEqual({ opened: pending, token: id.slice('call_del.ap1.'.length) });
  });

  it('expires after ttlSec', () => {
    jest.useFakeTimers();
    const id = tokens.idFor(alice, 'notes', pending);
    jest.advanceTimersByTime(601_000);
    expect(tokens.read(alice, 'notes', id)).toEqual({ failed: 'expired' });
  });
});
