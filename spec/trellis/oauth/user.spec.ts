import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { userKey, userOf } from '../../../lib/trellis/oauth/user';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('userOf', () => {
  it('is the hash of the client’s identity by default (one per key, however it is sent), never the credential', () => {
    const user = userOf(request({ authorization: 'Bearer sk-alice-0123456789' }), undefined);
    expect(user).toBe(userKey(createHash('sha256').update('sk-alice-0123456789').digest('hex')));
    expect(user).toMatch(/^[\w-]{22}$/);
    expect(user).not.toContain('alice');
    expect(userOf(request({ 'x-api-key': 'sk-alice-0123456789' }), undefined)).toBe(user);
    expect(userOf(request({ 'x-api-key': 'k-1' }), undefined)).not.toBe(user);
  });

  it('reads the header oauth.user names, whatever its case', () => {
    expect(userOf(request({ authorization: 'Bearer a', 'x-user-id': 'u-1' }), 'X-User-Id')).toBe(userKey('u-1'));
    expect(userOf(request({ authorization: 'Bearer a' }), 'x-user-id')).toBeUndefined();
  });

  it('asks the function oauth.user gives; one that throws or answers nothing names nobody', () => {
    expect(userOf(request({}), () => 'u-2')).toBe(userKey('u-2'));
    expect(userOf(request({}), () => '')).toBeUndefined();
    expect(
      userOf(request({}), () => {
        throw new Error('no session');
      }),
    ).toBeUndefined();
  });

  it('is nobody for a request without a credential', () => {
    expect(userOf(request({}), undefined)).toBeUndefined();
  });
});
