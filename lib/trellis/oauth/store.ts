/** What OAuth keeps in the fleet's store: sealed token records, client registrations, one-time states, refresh locks. */
export interface OAuthStore {
  get(key: string): Promise<string | undefined>;
  /** false when `ifAbsent` found the key there */
  set(key: string, value: string, options?: { ttlMs?: number; ifAbsent?: boolean }): Promise<boolean>;
  delete(key: string, ifValue?: string): Promise<boolean>;
  entries(prefix: string): Promise<Map<string, string>>;
}

/** The store of one process, until the fleet's store is configured. */
export function memoryOAuthStore(): OAuthStore {
  const values = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = values.get(key);
    if (entry && entry.expiresAt <= Date.now()) values.delete(key);
    return values.get(key);
  };
  return {
    get: async (key) => live(key)?.value,
    async set(key, value, { ttlMs = Infinity, ifAbsent = false } = {}) {
      if (ifAbsent && live(key)) return false;
      values.set(key, { value, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async delete(key, ifValue) {
      const entry = live(key);
      if (!entry || (ifValue !== undefined && entry.value !== ifValue)) return false;
      return values.delete(key);
    },
    async entries(prefix) {
      return new Map([...values.keys()].filter((key) => key.startsWith(prefix) && live(key)).map((key) => [key, values.get(key)!.value]));
    },
  };
}
