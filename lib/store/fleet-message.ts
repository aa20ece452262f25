import { sign, verify } from '../shared/signed-token';

export type SharedKind = 'settings' | 'judge-rules';

/**
 * One change a replica shares with the fleet: the value whole, who made it, and where it stands in the fleet's order.
 */
export interface FleetChange {
  replica: string;
  kind: SharedKind;
  /**
   * orders the fleet's changes (a Lamport clock on ms: later than the clock and than any change the replica held): a
   * replica adopts a change newer than the one it holds, never an older one (a replay, or a late read of the store)
   */
  version: number;
  value: unknown;
}

/** What the store holds lasts until it is replaced: its signature never expires (the largest date). */
const NEVER = 8_640_000_000_000_000;

/** `change` as the store holds it and the channel carries it: signed (HMAC-SHA256, a key derived from the secret). */
export const signedChange = (secret: Buffer, change: FleetChange): string =>
  sign(secret, { kind: 'fleet' }, JSON.stringify(change), NEVER);

/** The change `text` carries; undefined when it is not signed with this secret (only a replica writes one). */
export function openedChange(secret: Buffer, text: string): FleetChange | undefined {
  const verified = verify(secret, { kind: 'fleet' }, text);
  return 'failed' in verified ? undefined : (JSON.parse(verified.payload) as FleetChange);
}
