import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import { open, seal } from '../../shared/signed-token';
import type { Store } from '../../store/store';

/**
 * What the callback needs to finish one sign-in, sealed (AES-256-GCM) into the authorization request's `state`, so
 * that any replica sharing `internalSecret` finishes it: whose it is, the PKCE verifier, the authorization server and
 * token endpoint the code is bound to, and the client it registered (no secret).
 */
export interface Flow {
  server: string;
  user: string;
  verifier: string;
  authorizationServerUrl: string;
  /** where the code is exchanged: the callback sends it there or nowhere */
  tokenEndpoint: string;
  /** the authorization request, without its state: where the confirmation page sends the browser */
  authorization: string;
  /** who is being linked, as the confirmation page says it */
  label: string;
  resourceMetadataUrl?: string;
  client: OAuthClientInformationMixed;
  /** one-time: the callback takes a state once */
  nonce: string;
}

export const FLOW_TTL_MS = 10 * 60 * 1000;
const MAX_STATE_BYTES = 16 * 1024;
const purpose = { kind: 'oauth-state' as const };

export const newNonce = (): string => randomBytes(16).toString('base64url');

export function sealFlow(key: Buffer, flow: Flow): string {
  return seal(key, purpose, flow, Date.now() + FLOW_TTL_MS);
}

export type OpenedFlow = { flow: Flow } | { failed: 'invalid' | 'expired' | 'replayed' };

/** The flow a state seals, without taking it: the confirmation page reads it, the callback takes it. */
export function readFlow(key: Buffer, state: string): OpenedFlow {
  const opened = open<Flow>(key, purpose, state, MAX_STATE_BYTES);
  if (!('payload' in opened)) return { failed: opened.failed === 'expired' ? 'expired' : 'invalid' };
  // a state sealed by an earlier version lacks what the page and the callback need now
  const { authorization, tokenEndpoint } = opened.payload;
  return typeof authorization === 'string' && typeof tokenEndpoint === 'string'
    ? { flow: opened.payload }
    : { failed: 'invalid' };
}

/** The flow a state seals, once: a second callback with the same state (a replay) is refused. */
export async function takeFlow(key: Buffer, state: string, store: Store): Promise<OpenedFlow> {
  const opened = readFlow(key, state);
  if (!('flow' in opened)) return opened;
  const first = await store.set(`oauth:state:${opened.flow.nonce}`, '1', { ttlMs: FLOW_TTL_MS, ifAbsent: true });
  return first ? opened : { failed: 'replayed' };
}
