import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { connectUrl } from './connect';
import { newNonce, sealFlow, type Flow } from './flow-state';
import { checkEndpoints, tokenEndpointOf } from './mix-up';
import type { OAuthOptions } from './options';
import type { TokenVault } from './vault';

/** What every user's sign-in to one server shares. */
export interface ServerAuth {
  /** the server's name, as the consent text and the admin API say it */
  server: string;
  options: OAuthOptions;
  vault: TokenVault;
  key: Buffer;
  /** the discovery last made for this server (per replica: the callback leg carries its own in the state) */
  discovery?: OAuthDiscoveryState;
}

const withoutState = (url: URL) => {
  const bare = new URL(url);
  bare.searchParams.delete('state');
  return bare.toString();
};

/** The Client ID Metadata Document's URL, beside the callback; an https one only, as the draft asks. */
export function clientMetadataUrl(redirectUrl: string): string | undefined {
  const url = new URL(redirectUrl);
  if (url.protocol !== 'https:') return undefined;
  url.pathname = `${url.pathname.replace(/\/$/, '')}/client-metadata.json`;
  url.search = '';
  return url.toString();
}

export function clientMetadata({ redirectUrl, clientSecret, scopes }: OAuthOptions): OAuthClientMetadata {
  return {
    client_name: 'express-agent-loop',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: clientSecret ? 'client_secret_basic' : 'none',
    ...(scopes ? { scope: scopes.join(' ') } : {}),
  };
}

/**
 * The SDK's `auth()` for one user of one server: it discovers, registers, refreshes and builds the authorization
 * URL; this says where tokens and registrations live (the vault) and keeps what the redirect needs. `flow`: the
 * sealed state the callback opened, on the callback leg.
 */
export class GatewayOAuthProvider implements OAuthClientProvider {
  /** the link the person is given (the gateway's confirmation page), once `auth()` decided the user must consent */
  authorizationUrl?: string;
  private verifier?: string;

  constructor(
    private readonly shared: ServerAuth,
    private readonly user: string,
    private readonly flow?: Flow,
    /** who is being linked, as the confirmation page says it */
    private readonly label = 'this gateway user',
  ) {}

  get redirectUrl(): string {
    return this.shared.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.shared.options.clientId ? undefined : clientMetadataUrl(this.shared.options.redirectUrl);
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.shared.options);
  }

  /**
   * The configured client is the operator's for whichever authorization server the resource names: it carries the
   * issuer `auth()` asks for (SEP-2352's stamp, without which the SDK warns on every sign-in). A registered one
   * carries the issuer it was registered with, and the SDK sets it aside at any other.
   */
  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret } = this.shared.options;
    if (clientId)
      return {
        client_id: clientId,
        ...(clientSecret ? { client_secret: clientSecret } : {}),
        ...(ctx?.issuer ? { issuer: ctx.issuer } : {}),
      };
    return (await this.shared.vault.client(this.shared.server)) ?? this.flow?.client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    if (!this.shared.options.clientId) await this.shared.vault.saveClient(this.shared.server, client);
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.shared.vault.get(this.shared.server, this.user))?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.shared.vault.save(this.shared.server, this.user, tokens);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    const verifier = this.flow?.verifier ?? this.verifier;
    if (verifier === undefined) throw new Error('no PKCE verifier for this sign-in');
    return verifier;
  }

  /**
   * On the callback leg: the authorization server and token endpoint the code is bound to, as the state recorded
   * them; what this replica discovered since is used only when it names both.
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    const known = this.shared.discovery;
    if (!this.flow) return known;
    const { authorizationServerUrl, resourceMetadataUrl, tokenEndpoint } = this.flow;
    return known?.authorizationServerUrl === authorizationServerUrl && tokenEndpointOf(known) === tokenEndpoint
      ? known
      : { authorizationServerUrl, resourceMetadataUrl };
  }

  /** What `auth()` discovered: refused when it could be a mix-up, or when it moved the flow's token endpoint. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    checkEndpoints(state.authorizationServerMetadata);
    if (this.flow && tokenEndpointOf(state) !== this.flow.tokenEndpoint)
      throw new Error(
        "the authorization server's token endpoint is no longer the one the consent link was made for: " +
          'the code is not sent to another',
      );
    this.shared.discovery = state;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'tokens') await this.shared.vault.forget(this.shared.server, this.user);
    if ((scope === 'all' || scope === 'client') && !this.shared.options.clientId)
      await this.shared.vault.forgetClient(this.shared.server);
    if (scope === 'all' || scope === 'discovery') this.shared.discovery = undefined;
  }

  /**
   * The SDK asks for `state` before it makes the PKCE verifier, so the state it put in the URL is replaced here by
   * the sealed flow, verifier and authorization request included, which any replica can open. The person is given
   * the gateway's confirmation page for it, not the authorization request itself.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    const client = await this.clientInformation();
    const discovery = this.shared.discovery;
    if (!client || !discovery || this.verifier === undefined) throw new Error('the sign-in was not prepared');
    const { client_secret: _secret, ...publicClient } = client;
    const flow: Flow = {
      server: this.shared.server,
      user: this.user,
      verifier: this.verifier,
      authorizationServerUrl: discovery.authorizationServerUrl,
      tokenEndpoint: tokenEndpointOf(discovery),
      authorization: withoutState(url),
      label: this.label,
      ...(discovery.resourceMetadataUrl ? { resourceMetadataUrl: discovery.resourceMetadataUrl } : {}),
      client: publicClient,
      nonce: newNonce(),
    };
    this.authorizationUrl = connectUrl(this.shared.options.redirectUrl, sealFlow(this.shared.key, flow));
  }
}
