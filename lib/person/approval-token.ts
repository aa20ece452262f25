import type { IncomingMessage } from 'node:http';
import { MAX_APPROVAL_ARGUMENTS_BYTES, type PendingApproval } from './approval';
import { callIdBefore, SealedIds, type ReadSealed } from './sealed-id';
import { MAX_REPLAY_BYTES } from '../code-mode/replay-log';

/** Between the model's own call id and the approval's token: `<call id>.ap1.<sealed token>`. */
const TAG = '.ap1.';
/** what one approval seals: the arguments, and for a nested call of code mode's its program's log */
const MAX_APPROVAL_TOKEN_CHARS = 2 * (MAX_APPROVAL_ARGUMENTS_BYTES + MAX_REPLAY_BYTES);

/** What an approval's token holds: the call waiting, and what the person was asked. */
export type SealedApproval = PendingApproval;

export type ReadApproval = ReadSealed<SealedApproval>;

/** The model's call id an approval call's id names; undefined for an id that is not an approval's. */
export const approvedCallId = (id: unknown): string | undefined => callIdBefore(TAG, id);

/** Approval tokens, sealed for the client that asked (its identity) and expiring after `ttlSec`. */
export class ApprovalTokens extends SealedIds<SealedApproval> {
  constructor(key: Buffer, ttlSec: number) {
    super(key, ttlSec, TAG, 'approval', MAX_APPROVAL_TOKEN_CHARS);
  }

  /** The id of the approval call for `pending`: the model's call id, then the sealed call. */
  idFor(req: IncomingMessage, binding: string, pending: PendingApproval): string {
    const { callId, tool, arguments: args, reason, program } = pending;
    return this.sealedId(req, binding, { callId, tool, arguments: args, reason, ...(program ? { program } : {}) });
  }
}
