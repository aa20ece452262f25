import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { clientIdentity, conflictMessage, presentedCredential } from '../../lib/shared/client-identity';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe("the client's identity", () => {
  it.each([
    [{ authorization: 'Bearer key-1' }, { credential: 'key-1' }],
    [{ authorization: 'bearer   key-1  ' }, { credential: 'key-1' }],
    [{ 'x-api-key': ' key-1 ' }, { credential: 'key-1' }],
    [{ authorization: 'Bearer key-1', 'x-api-key': 'key-1' }, { credential: 'key-1' }],
    [{ authorization: 'Basic a2V5LTE=' }, { credential: 'Basic a2V5LTE=' }],
    [{ authorization: 'Bearer key 1' }, { credential: 'Bearer key 1' }],
    [{ authorization: '', 'x-api-key': 'key-1' }, { credential: 'key-1' }],
    [{ authorization: '  ' }, {}],
    [{}, {}],
    [{ authorization: 'Bearer key-1', 'x-api-key': 'key-2' }, { conflicting: ['Authorization', 'x-api-key'] }],
    [{ authorization: 'Basic junk-1', 'x-api-key': 'key-1' }, { conflicting: ['Authorization', 'x-api-key'] }],
  ])('reads %j as %j', (headers, presented) => {
    expect(presentedCredential(request(headers))).toEqual(presented);
  });

  it("reads Google's key as x-goog-api-key or ?key=, one credential when both say the same", () => {
    const at = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;
    expect(presentedCredential(at('/v1beta/models/m:generateContent?key=key-1'))).toEqual({ credential: 'key-1' });
    expect(presentedCredential(request({ 'x-goog-api-key': 'key-1' }))).toEqual({ credential: 'key-1' });
    expect(
      presentedCredential(at('/v1/models/m:generateContent?alt=sse&key=key-1', { 'x-goog-api-key': 'key-1' })),
    ).toEqual({
      credential: 'key-1',
    });
    expect(presentedCredential(at('/v1/models/m:generateContent?key=key-2', { 'x-goog-api-key': 'key-1' }))).toEqual({
      conflicting: ['x-goog-api-key', 'the key query parameter'],
    });
  });

  it('is the SHA-256 of the one key, however it was sent; none without a credential or with conflicting ones', () => {
    expect(clientIdentity(request({ authorization: 'Bearer key-1' }))).toBe(sha256('key-1'));
    expect(clientIdentity(request({ 'x-api-key': 'key-1' }))).toBe(sha256('key-1'));
    expect(clientIdentity(request({ authorization: 'Bearer key-1', 'x-api-key': 'key-1' }))).toBe(sha256('key-1'));
    expect(clientIdentity(request({ authorization: 'Basic a2V5LTE=' }))).toBe(sha256('Basic a2V5LTE='));
    expect(clientIdentity(request({}))).toBeUndefined();
    expect(clientIdentity(request({ authorization: 'Basic junk', 'x-api-key': 'key-1' }))).toBeUndefined();
  });

  it('says which places disagree, and what to send', () => {
    expect(conflictMessage(['Authorization', 'x-api-key'])).toBe(
      'the request presents different credentials in Authorization and x-api-key; send one key (the same key wherever it is sent)',
    );
  });
});
