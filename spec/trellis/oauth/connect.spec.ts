import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { authorizationUrl, confirmedHere, connectUrl, page, whoOf } from '../../../lib/trellis/oauth/connect';
import { newNonce, type Flow } from '../../../lib/trellis/oauth/flow-state';

const requestWith = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const flow = (): Flow => ({
  server: 'notes',
  user: 'u1',
  verifier: 'v',
  authorizationServerUrl: 'https://auth.example.com/',
  tokenEndpoint: 'https://auth.example.com/token',
  authorization: 'https://auth.example.com/authorize?client_id=c1',
  label: 'u1',
  client: { client_id: 'c1' },
  nonce: newNonce(),
});

describe('the consent link’s confirmation page', () => {
  it('lives beside the callback, and sends the confirmed browser to the authorization request with the state', () => {
    expect(connectUrl('https://gw.example.com/oauth/callback?x=1', 'a.b')).toBe(
      'https://gw.example.com/oauth/callback/connect?state=a.b',
    );
    expect(authorizationUrl(flow(), 's.1')).toBe('https://auth.example.com/authorize?client_id=c1&state=s.1');
  });

  it('names the user by oauth.user, or the client key by its last characters only', () => {
    expect(whoOf(requestWith({ 'x-user-id': 'alice@example.com' }), 'x-user-id')).toBe('alice@example.com');
    expect(whoOf(requestWith({}), 'x-user-id')).toBe('this gateway user');
    expect(whoOf(requestWith({ authorization: 'Bearer alice-key-0123456789' }), undefined)).toBe(
      'the client whose key ends in …6789',
    );
    expect(whoOf(requestWith({ authorization: 'Bearer short' }), undefined)).toBe('this gateway client');
  });

  it('escapes what it shows', () => {
    const shown = page('<b>', '"x"', { url: '/c?state=a&b', label: '<go>' });
    expect(shown).not.toMatch(/<b>|"x"|<go>/);
    expect(shown).toContain('action="/c?state=a&#38;b"');
  });

  it('takes no cookie it did not set for this very flow', () => {
    const key = randomBytes(32);
    const one = flow();
    expect(confirmedHere(requestWith({}), key, one)).toBe(false);
    expect(confirmedHere(requestWith({ cookie: `agent_loop_consent_${one.nonce}=forged` }), key, one)).toBe(false);
  });
});
