import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { open, seal } from '../../shared/signed-token';
import type { Store } from '../../store/store';

/** One user's tokens for one server, as the vault keeps them: the tokens and when the access token expires (ms). */
export interface TokenRecord {
  tokens: StoredOAuthTokens;
  expiresAt?: number;
  /** how long the access token was given to live (ms); absent in records stored before it was kept */
  lifetimeMs?: number;
}

/** What the admin API shows of a record: never a token. */
export interface TokenListing {
  server: string;
  user: string;
  expiresAt: string | null;
  scope: string | null;
  refreshable: boolean;
}

/** A record outlives its access token: the refresh token has no expiry we know of. */
const RECORD_TTL_MS = 365 * 24 * 3600 * 1000;
const MAX_RECORD_BYTES = 64 * 1024;
const PREFIX = 'oauth:tokens:';
const CLIENT_PREFIX = 'oauth:client:';

const keyOf = (server: string, user: string) => `${PREFIX}${encodeURIComponent(server)}:${user}`;

/**
 * Each user's tokens per server, sealed (AES-256-GCM under a key derived from `internalSecret`, bound to the server
 * and the user) in the store: whoever reads the store reads no token, and a record moved to another key opens no more.
 */
export class TokenVault {
  constructor(
    private readonly key: Buffer,
    private readonly store: Store,
  ) {}

  get(server: string, user: string): Promise<TokenRecord | undefined> {
    return this.read<TokenRecord>(keyOf(server, user));
  }

  async save(server: string, user: string, tokens: StoredOAuthTokens): Promise<TokenRecord> {
    const record: TokenRecord = {
      tokens,
      ...(tokens.expires_in === undefined
        ? {}
        : { expiresAt: Date.now() + tokens.expires_in * 1000, lifetimeMs: tokens.expires_in * 1000 }),
    };
    await this.write(keyOf(server, user), record);
    return record;
  }

  forget(server: string, user: string): Promise<boolean> {
    return this.store.delete(keyOf(server, user));
  }

  /** the client the gateway registered with the server's authorization server (its secret, if any, sealed too) */
  client(server: string): Promise<StoredOAuthClientInformation | undefined> {
    return this.read(CLIENT_PREFIX + encodeURIComponent(server));
  }

  saveClient(server: string, client: StoredOAuthClientInformation): Promise<void> {
    return this.write(CLIENT_PREFIX + encodeURIComponent(server), client);
  }

  async forgetClient(server: string): Promise<void> {
    await this.store.delete(CLIENT_PREFIX + encodeURIComponent(server));
  }

  async list(): Promise<TokenListing[]> {
    const entries = await this.store.entries(PREFIX);
    return [...entries.keys()].flatMap((key): TokenListing[] => {
      const cut = key.lastIndexOf(':');
      const server = decodeURIComponent(key.slice(PREFIX.length, cut));
      const user = key.slice(cut + 1);
      const record = this.opened(key, entries.get(key)!);
      if (!record) return [];
      return [
        {
          server,
          user,
          expiresAt: record.expiresAt === undefined ? null : new Date(record.expiresAt).toISOString(),
          scope: record.tokens.scope ?? null,
          refreshable: record.tokens.refresh_token !== undefined,
        },
      ];
    });
  }

  private async read<T>(key: string): Promise<T | undefined> {
    const sealed = await this.store.get(key);
    return sealed === undefined ? undefined : this.opened<T>(key, sealed);
  }

  private async write(key: string, value: unknown): Promise<void> {
    await this.store.set(key, seal(this.key, { kind: 'oauth', context: key }, value, Date.now() + RECORD_TTL_MS), {
      ttlMs: RECORD_TTL_MS,
    });
  }

  /** the value sealed at `key`, unless it was sealed for another key (moved) or under another secret */
  private opened<T = TokenRecord>(key: string, sealed: string): T | undefined {
    const opened = open<T>(this.key, { kind: 'oauth', context: key }, sealed, MAX_RECORD_BYTES);
    return 'payload' in opened ? opened.payload : undefined;
  }
}
