import type { IncomingMessage } from 'node:http';
import type { RequireApproval } from '../types';
import type { ReplayLog } from '../code-mode/replay-log';
import { APPROVAL } from './question';
import { callIdBefore, SealedIds, type ReadSealed } from './sealed-id';

/** A call that did not run: a person must approve it first. */
export interface PendingApproval {
  /** the model's id of the call */
  callId: string;
  tool: string;
  /** what the person approves: the arguments as the judge left them */
  arguments: Record<string, unknown>;
  reason: string;
  /** a nested call of code mode's waits: its program's log, to resume it with the answer */
  program?: ReplayLog;
}

/** Why the binding's `requireApproval` asks a person about `tool`; undefined when it does not. */
export function requiredApproval(rule: RequireApproval, binding: string, tool: string): string | undefined {
  if (rule === 'never') return undefined;
  if (rule !== 'always' && rule.never.toolNames.includes(tool)) return undefined;
  return `binding '${binding}' requires approval for '${tool}'`;
}

/** The arguments a person is asked to approve travel sealed in an id: longer ones cannot be handed to them. */
export const MAX_APPROVAL_ARGUMENTS_BYTES = APPROVAL.maxBytes;

/** What an approval's token holds: the call waiting, and what the person was asked. */
export type SealedApproval = PendingApproval;

export type ReadApproval = ReadSealed<SealedApproval>;

/** The model's call id an approval call's id (`<call id>.ap1.<sealed token>`) names; undefined for another id. */
export const approvedCallId = (id: unknown): string | undefined => callIdBefore(APPROVAL.tag, id);

/** Approval tokens, sealed for the client that asked (its identity) and expiring after `ttlSec`. */
export class ApprovalTokens extends SealedIds<SealedApproval> {
  constructor(key: Buffer, ttlSec: number) {
    super(key, ttlSec, APPROVAL);
  }

  /** The id of the approval call for `pending`: the model's call id, then the sealed call. */
  idFor(req: IncomingMessage, binding: string, pending: PendingApproval): string {
    const { callId, tool, arguments: args, reason, program } = pending;
    return this.sealedId(req, binding, { callId, tool, arguments: args, reason, ...(program ? { program } : {}) });
  }
}
