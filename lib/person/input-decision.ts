import type { Request } from 'express';
import type { Unapproved } from './refusal';
import type { AnswerLedger } from './ledger';
import { inputCallId, type InputTokens, type SealedInput } from './input';
import { INPUT, readRefusal } from './question';

export interface InputReader {
  /** the name of the tool a client declares to put a tool's questions to the person */
  tool: string;
  maxRounds: number;
  tokens: InputTokens;
  ledger: AnswerLedger;
}

/** What the client's answer to one of this gateway's questions decided: an answer to weigh, or a refusal. */
export type InputDecision =
  | {
      outcome: 'answered';
      tool: string;
      callId: string;
      arguments: Record<string, unknown>;
      token: string;
      sealed: SealedInput;
      given: unknown;
    }
  | {
      outcome: 'expired' | 'refused';
      input: true;
      tool: string;
      callId: string;
      refusal: Unapproved;
      reason: string;
      token?: string;
    };

/** The answer to one question the loop asked, by the question's id (`<call id>.in1.<token>`). */
export function decideInput(
  reader: InputReader,
  req: Request,
  binding: string,
  questionId: string,
  shownTool: string,
  given: unknown,
): InputDecision {
  const callId = inputCallId(questionId) ?? questionId;
  const read = reader.tokens.read(req, binding, questionId);
  if ('failed' in read)
    return { input: true, tool: shownTool, callId, ...readRefusal(INPUT, read.failed, reader.tokens.ttlSec) };
  const sealed = read.opened;
  return {
    outcome: 'answered',
    tool: sealed.tool,
    callId,
    arguments: sealed.arguments,
    token: read.token,
    sealed,
    given,
  };
}
