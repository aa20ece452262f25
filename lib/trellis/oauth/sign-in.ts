import { setTimeout as delay } from 'node:timers/promises';
import type { AuthProvider, FetchLike, InsufficientScopeError } from '@modelcontextprotocol/client';
import { mcpClient } from '../mcp-sdk';
import { GatewayOAuthProvider, type ServerAuth } from './client-provider';
import { ConsentRequired } from './consent';
import { checkResourceMetadataUrl, discoveryFetch } from './discovery-fetch';
import { newNonce, type Flow } from './flow-state';
import type { Store } from '../../store/store';
import type { TokenRecord } from './vault';

/**
 * An access token this close to its expiry is refreshed before it is used: a minute, or a tenth of its life for a
 * short-lived one, which is then used for most of its life and refreshed once.
 */
const REFRESH_BEFORE_MS = 60_000;
const REFRESH_BEFORE_SHARE = 0.1;
/** One refresh at a time per user and server, fleet-wide; a lock a crashed replica held frees itself. */
const LOCK_TTL_MS = 30_000;
const LOCK_POLL_MS = 100;
/** How many times in a row a user is asked for a wider scope before the call fails. */
export const MAX_STEP_UPS = 2;
const MAX_LABELS = 1024;

interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
  /** skip the refresh grant: only a new authorization widens a scope */
  force?: boolean;
}

const expiring = ({ expiresAt, lifetimeMs = Infinity }: TokenRecord) =>
  expiresAt !== undefined && expiresAt - Date.now() <= Math.min(REFRESH_BEFORE_MS, lifetimeMs * REFRESH_BEFORE_SHARE);

/**
 * Every user's sign-in to one MCP server, through the SDK's `auth()`: the consent link, the callback's code exchange,
 * refreshes (single flight per user, fleet-wide through the store's lock), the 401 that brings consent back, and
 * step-up on `insufficient_scope`.
 */
export class ServerSignIn {
  private readonly refreshing = new Map<string, Promise<TokenRecord | undefined>>();
  private readonly stepUps = new Map<string, number>();
  /** who each user is, as the confirmation page says it */
  private readonly labels = new Map<string, string>();
  /** every request `auth()` makes: bounded, and kept off private addresses the operator did not allow */
  private readonly fetch: FetchLike;

  constructor(
    readonly shared: ServerAuth,
    readonly serverUrl: string,
    private readonly store: Store,
  ) {
    this.fetch = discoveryFetch({ serverUrl, privateOrigins: shared.options.privateOrigins });
  }

  get server(): string {
    return this.shared.server;
  }

  /** Who `user` is, as the confirmation page of their next consent link says it (the latest 1,024 users kept). */
  remember(user: string, label: string): void {
    this.labels.delete(user);
    this.labels.set(user, label);
    if (this.labels.size > MAX_LABELS) this.labels.delete(this.labels.keys().next().value!);
  }

  /** What the user's MCP transport asks before each request, and on a 401. */
  authProvider(user: string): AuthProvider {
    return {
      token: () => this.accessToken(user),
      onUnauthorized: async ({ response }) => {
        const { resourceMetadataUrl, scope } = mcpClient().extractWWWAuthenticateParams(response);
        // a token we held as fresh was refused: the grant is gone, and only the person can give it again
        await this.shared.vault.forget(this.server, user);
        // the resource may have moved to another authorization server (SEP-2352): discovery is made anew, and the
        // SDK drops a stored client stamped with another issuer, so the gateway registers with the new one
        this.shared.discovery = undefined;
        const consent = await this.consent(user, { resourceMetadataUrl, scope });
        if (consent) throw consent;
      },
    };
  }

  /** The consent link for this user, or undefined when `auth()` got tokens without one (a refresh). */
  async consent(
    user: string,
    { resourceMetadataUrl, scope, force }: Challenge = {},
  ): Promise<ConsentRequired | undefined> {
    checkResourceMetadataUrl(this.serverUrl, resourceMetadataUrl);
    const provider = new GatewayOAuthProvider(this.shared, user, undefined, this.labels.get(user));
    const asked = mcpClient().computeScopeUnion(scope, this.shared.options.scopes?.join(' '));
    const result = await mcpClient().auth(provider, {
      serverUrl: this.serverUrl,
      resourceMetadataUrl,
      scope: asked,
      forceReauthorization: force,
      fetchFn: this.fetch,
    });
    return result === 'REDIRECT' && provider.authorizationUrl
      ? new ConsentRequired(this.server, provider.authorizationUrl)
      : undefined;
  }

  /** The callback leg: the code exchanged (the `iss` checked first) and the tokens stored for the flow's user. */
  async complete(flow: Flow, code: string, iss: string | undefined): Promise<void> {
    const provider = new GatewayOAuthProvider(this.shared, flow.user, flow);
    await mcpClient().auth(provider, { serverUrl: this.serverUrl, authorizationCode: code, iss, fetchFn: this.fetch });
  }

  /** The 403 asked for a wider scope: the person is asked for it (a bounded number of times in a row). */
  async stepUp(user: string, error: InsufficientScopeError): Promise<Error> {
    const count = (this.stepUps.get(user) ?? 0) + 1;
    if (count > MAX_STEP_UPS)
      return new Error(
        `${this.server} still refuses the call for want of scope ` +
          `'${error.requiredScope ?? ''}' after ${MAX_STEP_UPS} requests for it`,
      );
    this.stepUps.set(user, count);
    const held = await this.shared.vault.get(this.server, user);
    const scope = mcpClient().computeScopeUnion(held?.tokens.scope, error.requiredScope);
    return (await this.consent(user, { resourceMetadataUrl: error.resourceMetadataUrl, scope, force: true })) ?? error;
  }

  /** A call went through: the step-ups asked so far were answered. */
  served(user: string): void {
    this.stepUps.delete(user);
  }

  /** The user's access token, refreshed first when it is about to expire; undefined before they consented. */
  async accessToken(user: string): Promise<string | undefined> {
    const record = await this.shared.vault.get(this.server, user);
    if (!record || !expiring(record) || !record.tokens.refresh_token) return record?.tokens.access_token;
    let flight = this.refreshing.get(user);
    if (!flight) {
      flight = this.refreshed(user, record.tokens.access_token).finally(() => this.refreshing.delete(user));
      this.refreshing.set(user, flight);
    }
    return (await flight)?.tokens.access_token;
  }

  /** One refresh grant, under the fleet's lock; a replica that finds the lock taken waits for the other's tokens. */
  private async refreshed(user: string, stale: string): Promise<TokenRecord | undefined> {
    const { vault } = this.shared;
    const lock = `oauth:refresh:${encodeURIComponent(this.server)}:${user}`;
    const holder = newNonce();
    while (!(await this.store.set(lock, holder, { ttlMs: LOCK_TTL_MS, ifAbsent: true }))) {
      await delay(LOCK_POLL_MS);
      const now = await vault.get(this.server, user);
      if (now?.tokens.access_token !== stale) return now;
    }
    try {
      const now = await vault.get(this.server, user);
      if (now?.tokens.access_token !== stale) return now;
      const consent = await this.consent(user);
      if (consent) throw consent;
      return await vault.get(this.server, user);
    } finally {
      await this.store.delete(lock, holder);
    }
  }
}
