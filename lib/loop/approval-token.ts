import type { IncomingMessage } from 'node:http';
import { clientIdentity } from '../client-identity';
import { open, seal, type Purpose } from '../signed-token';
import { MAX_APPROVAL_ARGUMENTS_BYTES, type PendingApproval } from './approval';

/** Between the model's own call id and the approval's token: `<call id>.ap1.<sealed token>`. */
const TAG = '.ap1.';
const MAX_APPROVAL_TOKEN_CHARS = 2 * MAX_APPROVAL_ARGUMENTS_BYTES;

/** What an approval's token holds: the call waiting, and what the person was asked. */
export type SealedApproval = PendingApproval;

export type ReadApproval = { opened: SealedApproval; token: string } | { failed: 'invalid' | 'expired' | 'too large' };

/** Bound to the binding that asked, to the call it is about and to the client: moved onto another call, it does not open. */
const purpose = (req: IncomingMessage, binding: string, callId: string): Purpose => ({
  kind: 'approval',
  context: `${binding}\n${callId}`,
  credential: clientIdentity(req),
});

/** The model's call id an approval call's id names; undefined for an id that is not an approval's. */
export function approvedCallId(id: unknown): string | undefined {
  const at = typeof id === 'string' ? id.indexOf(TAG) : -1;
  return at > 0 ? (id as string).slice(0, at) : undefined;
}

/** Approval tokens, sealed for the client that asked (its identity) and expiring after `ttlSec`. */
export class ApprovalTokens {
  constructor(
    private readonly key: Buffer,
    readonly ttlSec: number,
  ) {}

  /** The id of the approval call for `pending`: the model's call id, then the sealed call. */
  idFor(req: IncomingMessage, binding: string, pending: PendingApproval): string {
    const sealed: SealedApproval = {
      callId: pending.callId,
      tool: pending.tool,
      arguments: pending.arguments,
      reason: pending.reason,
    };
    return `${pending.callId}${TAG}${seal(this.key, purpose(req, binding, pending.callId), sealed, Date.now() + this.ttlSec * 1000)}`;
  }

  read(req: IncomingMessage, binding: string, id: string): ReadApproval {
    const callId = approvedCallId(id);
    const token = callId === undefined ? '' : id.slice(callId.length + TAG.length);
    if (callId === undefined || token.length > MAX_APPROVAL_TOKEN_CHARS) return { failed: 'invalid' };
    const opened = open<SealedApproval>(
      this.key,
      purpose(req, binding, callId),
      token,
      4 * MAX_APPROVAL_ARGUMENTS_BYTES,
    );
    if ('failed' in opened) return opened;
    if (opened.payload?.callId !== callId || typeof opened.payload.tool !== 'string') return { failed: 'invalid' };
    return { opened: opened.payload, token };
  }
}
