import { randomBytes } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { SignIns } from '../../../lib/trellis/oauth/sign-ins';
import { memoryLogger } from '../../helpers/memory-logger';

const redirectUrl = 'https://gateway.example.com/oauth/callback';

function app(signIns: SignIns) {
  const served = express();
  served.use((req, res, next) => (signIns.serve(req, res) ? undefined : next()));
  served.use((_req, res) => void res.status(418).send('next'));
  return served;
}

describe('SignIns', () => {
  const { logger, lines } = memoryLogger('warn');
  const signIns = new SignIns(randomBytes(32), logger);
  signIns.add('notes', 'https://mcp.example.com/mcp', { redirectUrl });

  it('serves the callback path of each redirectUrl, on GET only; anything else goes on', async () => {
    await request(app(signIns)).get('/oauth/callback').expect(400);
    await request(app(signIns)).post('/oauth/callback').expect(418);
    await request(app(signIns)).get('/v1/models').expect(418);
    await request(app(new SignIns(randomBytes(32), logger)))
      .get('/oauth/callback')
      .expect(418);
  });

  it('serves the Client ID Metadata Document beside an https callback, its URL the client id', async () => {
    const { body } = await request(app(signIns)).get('/oauth/callback/client-metadata.json').expect(200);
    expect(body).toMatchObject({
      client_id: 'https://gateway.example.com/oauth/callback/client-metadata.json',
      redirect_uris: [redirectUrl],
      token_endpoint_auth_method: 'none',
    });
  });

  it.each([
    ['?error=access_denied&state=s', 'the authorization server answered &#39;access_denied&#39;'],
    ['?code=c', 'the link lacks its code or state'],
    ['?code=c&state=forged', 'the state is invalid'],
  ])('answers %s with a 400 page that stores nothing, and a log line', async (query, why) => {
    const { text, headers } = await request(app(signIns)).get(`/oauth/callback${query}`).expect(400);
    expect(text).toContain(`The sign-in did not complete: ${why}. Nothing was stored`);
    expect(headers['cache-control']).toBe('no-store');
    expect(lines.at(-1)).toMatchObject({ message: 'agent-loop refused an OAuth callback' });
    expect(await signIns.vault.list()).toEqual([]);
  });

  it('serves the confirmation page beside the callback, GET and POST: a forged state gets a 400 page', async () => {
    for (const method of ['get', 'post'] as const) {
      const { text } = await request(app(signIns))[method]('/oauth/callback/connect?state=forged').expect(400);
      expect(text).toContain('The sign-in did not complete: the state is invalid.');
    }
    await request(app(signIns)).post('/oauth/callback').expect(418);
  });

  it('escapes what the authorization server sent on the page', async () => {
    const { text } = await request(app(signIns)).get('/oauth/callback?error=%3Cscript%3E').expect(400);
    expect(text).not.toContain('<script>');
  });
});
