import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type http from 'node:http';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { LOGIN_HEADER, getTrusting, startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { onLoopback, type OnLoopback } from '../../lib/testing/loopback';
import {
  ALICE,
  authorizationOf,
  chat,
  confirm,
  lastToolText,
  startGateway,
  whoamiThenAnswer,
  type Gateway,
} from './oauth-gateway';

const tls = path.join(__dirname, '..', '..', 'fixtures', 'tls');
const ca = fs.readFileSync(path.join(tls, 'cert.pem'));
const key = fs.readFileSync(path.join(tls, 'key.pem'));

/**
 * A Client ID Metadata Document's URL is its client id, and must be https: the gateway's app listens on loopback over
 * http (the clients' and its own self-calls) and over https with the fixtures' certificate (the public callback and
 * the document); the authorization server and the person's browser trust that certificate.
 */
describe('OAuth with a Client ID Metadata Document', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  let secure: OnLoopback;
  let redirectUrl: string;
  const documentUrl = () => `${redirectUrl}/client-metadata.json`;

  async function start(options: { advertised: boolean; https: boolean }) {
    const server = https.createServer({ key, cert: ca });
    secure = await onLoopback(server as unknown as http.Server);
    const secureCallback = `https://127.0.0.1:${secure.port}/oauth/callback`;
    mcp = await startOAuthMcpServer(options.advertised ? { clientMetadataCa: ca } : {});
    gateway = await startGateway(model, mcp, options.https ? { redirectUrl: secureCallback } : {});
    redirectUrl = options.https ? secureCallback : `${gateway.origin}/oauth/callback`;
    server.on('request', gateway.app);
  }

  beforeEach(async () => (model = await startModelServer()));
  afterEach(async () => {
    await gateway.close();
    await Promise.all([secure.close(), mcp.close(), model.close()]);
  });

  it('serves the document beside the callback: its URL is its client_id', async () => {
    await start({ advertised: true, https: true });
    const served = await getTrusting(documentUrl(), ca);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.text)).toEqual({
      client_id: documentUrl(),
      client_name: 'express-agent-loop',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('uses it where the authorization server supports it: no registration, the server fetches the document', async () => {
    await start({ advertised: true, https: true });
    const first = await chat(gateway, ALICE);
    expect(first.headers.get('x-agent-loop-stop')).toBe('authorization');
    const link = first.headers.get('x-agent-loop-authorize')!;
    expect(link.startsWith(`${redirectUrl}/connect?state=`)).toBe(true);
    const confirmed = await confirm(link, gateway.origin);
    expect(new URL(confirmed.location!).searchParams.get('client_id')).toBe(documentUrl());

    const authorized = await fetch(confirmed.location!, { headers: { [LOGIN_HEADER]: 'alice' }, redirect: 'manual' });
    const callback = authorized.headers.get('location')!;
    expect(callback.startsWith(`${redirectUrl}?`)).toBe(true);
    const page = await getTrusting(callback, ca, { cookie: confirmed.cookie! });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`${mcp.url} is connected`);
    expect(mcp.registrations).toEqual([]);
    expect(mcp.documents.length).toBeGreaterThanOrEqual(1);
    expect(new Set(mcp.documents)).toEqual(new Set([documentUrl()]));

    model.setScript(whoamiThenAnswer());
    await chat(gateway, ALICE);
    expect(lastToolText(model)).toBe('you are alice');
  });

  it.each([
    ['the authorization server does not say it supports them', { advertised: false, https: true }],
    ['the callback is not https (a document URL must be)', { advertised: true, https: false }],
  ])('registers the client (RFC 7591) when %s', async (_case, options) => {
    await start(options);
    const first = await chat(gateway, ALICE);
    const link = await authorizationOf(first.headers.get('x-agent-loop-authorize')!, gateway.origin);
    expect(mcp.registrations).toHaveLength(1);
    expect(link.searchParams.get('client_id')).toBe(mcp.registrations[0].client_id);
    expect(mcp.documents).toEqual([]);
  });
});
