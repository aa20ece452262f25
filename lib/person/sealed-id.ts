import type { IncomingMessage } from 'node:http';
import { clientIdentity } from '../shared/client-identity';
import { open, seal, type Purpose } from '../shared/signed-token';
import { MAX_REPLAY_BYTES } from '../code-mode/replay-log';
import type { SealedKind } from './question';

/** What every question to the person seals: the model's call it is about, and the tool. */
export interface SealedCall {
  callId: string;
  tool: string;
}

export type ReadSealed<T> = { opened: T; token: string } | { failed: 'invalid' | 'expired' | 'too large' };

/** The model's call id a question's id names (`<call id><tag><token>`); undefined for an id of no such question. */
export function callIdBefore(tag: string, id: unknown): string | undefined {
  const at = typeof id === 'string' ? id.indexOf(tag) : -1;
  return at > 0 ? (id as string).slice(0, at) : undefined;
}

/**
 * A question to the person travels as the id of the call that asks it: `<call id><tag><sealed token>`, bound to the
 * binding that asked, to the call it is about and to the client (its identity), expiring after `ttlSec`: moved onto
 * another call, another binding or another client, it does not open. The kind says its tag, what its tokens are
 * sealed for and how much a question seals.
 */
export class SealedIds<T extends SealedCall> {
  /** the longest token read: what the kind seals and a nested call's program log; its payload may unpack to twice */
  private readonly maxChars: number;

  constructor(
    private readonly key: Buffer,
    readonly ttlSec: number,
    private readonly kind: SealedKind,
  ) {
    this.maxChars = 2 * (kind.maxBytes + MAX_REPLAY_BYTES);
  }

  private purpose(req: IncomingMessage, binding: string, callId: string): Purpose {
    return { kind: this.kind.token, context: `${binding}\n${callId}`, credential: clientIdentity(req) };
  }

  /** the model's call id a question's id names; undefined for another id */
  callIdOf(id: unknown): string | undefined {
    return callIdBefore(this.kind.tag, id);
  }

  protected sealedId(req: IncomingMessage, binding: string, sealed: T): string {
    const expiresAt = Date.now() + this.ttlSec * 1000;
    const token = seal(this.key, this.purpose(req, binding, sealed.callId), sealed, expiresAt);
    return `${sealed.callId}${this.kind.tag}${token}`;
  }

  read(req: IncomingMessage, binding: string, id: string): ReadSealed<T> {
    const callId = this.callIdOf(id);
    const token = callId === undefined ? '' : id.slice(callId.length + this.kind.tag.length);
    if (callId === undefined || token.length > this.maxChars) return { failed: 'invalid' };
    const opened = open<T>(this.key, this.purpose(req, binding, callId), token, 2 * this.maxChars);
    if ('failed' in opened) return opened;
    if (opened.payload?.callId !== callId || typeof opened.payload.tool !== 'string') return { failed: 'invalid' };
    return { opened: opened.payload, token };
  }
}
