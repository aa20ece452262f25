import { randomBytes } from 'node:crypto';
import {
  clientMetadata,
  clientMetadataUrl,
  GatewayOAuthProvider,
  type ServerAuth,
} from '../../../lib/trellis/oauth/client-provider';
import { takeFlow } from '../../../lib/trellis/oauth/flow-state';
import { MemoryStore } from '../../../lib/store/memory-store';
import { TokenVault } from '../../../lib/trellis/oauth/vault';

const redirectUrl = 'https://gateway.example.com/oauth/callback';

function shared(options: ServerAuth['options'] = { redirectUrl }): ServerAuth {
  const key = randomBytes(32);
  return { server: 'notes', options, key, vault: new TokenVault(key, new MemoryStore()) };
}

describe('GatewayOAuthProvider', () => {
  it('registers a public client with the callback, or a confidential one when given a secret', () => {
    expect(clientMetadata({ redirectUrl })).toEqual({
      client_name: 'express-agent-loop',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(clientMetadata({ redirectUrl, clientId: 'c1', clientSecret: 's', scopes: ['a', 'b'] })).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'a b',
    });
  });

  it('offers a Client ID Metadata Document beside an https callback only, and not with a client id of its own', () => {
    expect(clientMetadataUrl(`${redirectUrl}?x=1`)).toBe(
      'https://gateway.example.com/oauth/callback/client-metadata.json',
    );
    expect(clientMetadataUrl('http://127.0.0.1:8080/oauth/callback')).toBeUndefined();
    expect(new GatewayOAuthProvider(shared(), 'u1').clientMetadataUrl).toBe(
      'https://gateway.example.com/oauth/callback/client-metadata.json',
    );
    expect(new GatewayOAuthProvider(shared({ redirectUrl, clientId: 'c1' }), 'u1').clientMetadataUrl).toBeUndefined();
  });

  it('is the configured client, else the one it registered', async () => {
    expect(
      await new GatewayOAuthProvider(
        shared({ redirectUrl, clientId: 'c1', clientSecret: 's' }),
        'u1',
      ).clientInformation(),
    ).toEqual({ client_id: 'c1', client_secret: 's' });
    const configured = new GatewayOAuthProvider(shared({ redirectUrl, clientId: 'c1' }), 'u1');
    expect(await configured.clientInformation({ issuer: 'https://auth.example.com' })).toEqual({
      client_id: 'c1',
      issuer: 'https://auth.example.com',
    });
    const registered = shared();
    const provider = new GatewayOAuthProvider(registered, 'u1');
    expect(await provider.clientInformation()).toBeUndefined();
    await provider.saveClientInformation({ client_id: 'dyn-1' });
    expect(await new GatewayOAuthProvider(registered, 'u2').clientInformation()).toEqual({ client_id: 'dyn-1' });
  });

  it('keeps the tokens in the vault, per user', async () => {
    const auth = shared();
    await new GatewayOAuthProvider(auth, 'u1').saveTokens({ access_token: 'at', token_type: 'Bearer' });
    expect(await new GatewayOAuthProvider(auth, 'u1').tokens()).toEqual({ access_token: 'at', token_type: 'Bearer' });
    expect(await new GatewayOAuthProvider(auth, 'u2').tokens()).toBeUndefined();
    await new GatewayOAuthProvider(auth, 'u1').invalidateCredentials('tokens');
    expect(await new GatewayOAuthProvider(auth, 'u1').tokens()).toBeUndefined();
  });

  it('gives the confirmation page’s link, the flow sealed in its state: verifier, authorization request and client travel to the callback, the secret does not', async () => {
    const auth = shared({ redirectUrl, clientId: 'c1', clientSecret: 'cs-1' });
    const provider = new GatewayOAuthProvider(auth, 'u1');
    provider.saveDiscoveryState({
      authorizationServerUrl: 'https://auth.example.com/',
      resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    });
    provider.saveCodeVerifier('verifier-0123456789');
    await provider.redirectToAuthorization(
      new URL('https://auth.example.com/authorize?state=placeholder&client_id=c1'),
    );
    const url = new URL(provider.authorizationUrl!);
    expect(`${url.origin}${url.pathname}`).toBe(`${redirectUrl}/connect`);
    expect(url.toString()).not.toContain('verifier-0123456789');
    const opened = await takeFlow(auth.key, url.searchParams.get('state')!, new MemoryStore());
    expect(opened).toEqual({
      flow: {
        server: 'notes',
        user: 'u1',
        verifier: 'verifier-0123456789',
        authorizationServerUrl: 'https://auth.example.com/',
        tokenEndpoint: 'https://auth.example.com/token',
        authorization: 'https://auth.example.com/authorize?client_id=c1',
        label: 'this gateway user',
        resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
        client: { client_id: 'c1' },
        nonce: expect.any(String),
      },
    });

    const callback = new GatewayOAuthProvider(auth, 'u1', (opened as { flow: never }).flow);
    expect(callback.codeVerifier()).toBe('verifier-0123456789');
    expect(callback.discoveryState()).toEqual(auth.discovery);
  });

  it('names on the callback leg the authorization server the state recorded, when this replica discovered another', () => {
    const auth = shared();
    auth.discovery = { authorizationServerUrl: 'https://other.example.com/' };
    const flow = {
      server: 'notes',
      user: 'u1',
      verifier: 'v',
      authorizationServerUrl: 'https://auth.example.com/',
      tokenEndpoint: 'https://auth.example.com/token',
      authorization: 'https://auth.example.com/authorize?client_id=c1',
      label: 'u1',
      client: { client_id: 'c1' },
      nonce: 'n',
    };
    expect(new GatewayOAuthProvider(auth, 'u1', flow).discoveryState()).toEqual({
      authorizationServerUrl: 'https://auth.example.com/',
      resourceMetadataUrl: undefined,
    });
    expect(() => new GatewayOAuthProvider(auth, 'u1').codeVerifier()).toThrow('no PKCE verifier');
    auth.discovery = {
      authorizationServerUrl: 'https://auth.example.com/',
      authorizationServerMetadata: {
        issuer: 'https://auth.example.com/',
        authorization_endpoint: 'https://auth.example.com/authorize',
        token_endpoint: 'https://auth.example.com/token-moved',
        response_types_supported: ['code'],
      },
    };
    expect(new GatewayOAuthProvider(auth, 'u1', flow).discoveryState()).toEqual({
      authorizationServerUrl: 'https://auth.example.com/',
      resourceMetadataUrl: undefined,
    });
  });
});
