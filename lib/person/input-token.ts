import type { IncomingMessage } from 'node:http';
import { MAX_QUESTION_BYTES, type Question } from './input';
import { callIdBefore, SealedIds, type SealedCall } from './sealed-id';
import { MAX_REPLAY_BYTES, type ReplayLog } from '../code-mode/replay-log';

/** Between the model's own call id and the question's token: `<call id>.in1.<sealed token>`. */
const TAG = '.in1.';

/** What a question's token holds: the call waiting, this question, and what goes back with every answer. */
export interface SealedInput extends SealedCall {
  arguments: Record<string, unknown>;
  /** the server's key of this question */
  key: string;
  /** the keys of every question asked with it: all are answered together */
  keys: string[];
  question: Question;
  requestState?: string;
  taskId?: string;
  answered: Record<string, unknown>;
  round: number;
  /** the same for every question asked together, and for no other: a question of another round does not join them */
  group: string;
  /** a nested call of code mode's asked: its program's log */
  program?: ReplayLog;
}

/** The model's call id a question's id names; undefined for an id that is not a question's. */
export const inputCallId = (id: unknown): string | undefined => callIdBefore(TAG, id);

/** Question tokens, sealed for the client that asked (its credential) and expiring after `input.ttlSec`. */
export class InputTokens extends SealedIds<SealedInput> {
  constructor(key: Buffer, ttlSec: number) {
    super(key, ttlSec, TAG, 'input', 2 * (MAX_QUESTION_BYTES + MAX_REPLAY_BYTES));
  }

  idFor(req: IncomingMessage, binding: string, sealed: SealedInput): string {
    return this.sealedId(req, binding, sealed);
  }
}
