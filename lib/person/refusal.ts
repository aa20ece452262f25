import type { SealedKind } from './question';

/** Why a call that needs a person's approval did not run. */
export type Unapproved =
  | { why: 'cannot_ask' }
  | { why: 'arguments_too_long'; maxBytes: number }
  | { why: 'denied'; reason: string }
  | { why: 'expired'; ttlSec: number }
  | { why: 'already_answered' }
  | { why: 'unrecorded' }
  | { why: 'not_asked' };

/**
 * Why a tool that asked the person for input did not finish: the client cannot ask, the person declined or
 * cancelled, the answer does not fit the question, the question is one the loop does not put to a person, or one of
 * the refusals a hand-back has (expired, already answered, not asked here).
 */
export type Unanswered =
  | { why: 'cannot_ask' }
  | { why: 'declined' | 'cancelled' }
  | { why: 'invalid_answer'; field: string; problem: string }
  | { why: 'secret'; field: string }
  | { why: 'insecure_url'; url: string }
  | { why: 'unsupported'; method: string }
  | { why: 'max_rounds'; maxRounds: number }
  | { why: 'too_large'; maxBytes: number }
  | Exclude<Unapproved, { why: 'cannot_ask' | 'arguments_too_long' | 'denied' }>;

/** Why a question to the person decided nothing: an approval's refusals, and a tool's question's. */
export type Refusal = Unapproved | Unanswered;

/** The refusals every sealed kind has, read alike in each kind's words. */
type Shared = Extract<Refusal, { why: 'cannot_ask' | 'expired' | 'already_answered' | 'unrecorded' | 'not_asked' }>;

const SAMPLING = 'sampling/createMessage';

/**
 * What the model reads for a call whose question to the person decided nothing (the loop adds `tool error:`): the
 * refusals every kind has in the words of `kind`, and each kind's own.
 */
export function refusalText(kind: SealedKind, tool: string, refusal: Refusal): string {
  const words = kind.words;
  switch (refusal.why) {
    case 'cannot_ask':
      return `'${tool}' needs ${words.needs}, which this client cannot give`;
    case 'expired':
      return (
        `${words.answer} '${tool}' came after ${words.expired} (${words.question}s last ${refusal.ttlSec}s); ` +
        words.afterExpiry
      );
    case 'already_answered':
      return `the ${words.question} of '${tool}' was already answered; the call does not run again`;
    case 'unrecorded':
      return `${words.answer} '${tool}' could not be recorded; ask again`;
    case 'not_asked':
      return `the ${words.question} of '${tool}' is not one this gateway ${words.asked}; the call did not run`;
    default:
      return ownRefusalText(tool, refusal);
  }
}

/** The refusals only one kind has: an approval's, then a tool's question's. */
function ownRefusalText(tool: string, refusal: Exclude<Refusal, Shared>): string {
  switch (refusal.why) {
    case 'arguments_too_long':
      return (
        `'${tool}' needs approval, ` +
        `but its arguments are too long to show a person (over ${refusal.maxBytes} bytes)`
      );
    case 'denied':
      return `'${tool}' was not approved: ${refusal.reason}`;
    case 'declined':
    case 'cancelled':
      return `'${tool}' needed input from the user, who ${refusal.why}`;
    case 'invalid_answer':
      return (
        `the user's answer to '${tool}' does not fit its question: '${refusal.field}' ${refusal.problem}; ` +
        'the tool was not called with it'
      );
    case 'secret':
      return (
        `'${tool}' asked the user for a password, secret or token in a form ('${refusal.field}'), ` +
        'which MCP forbids; the user was not asked'
      );
    case 'insecure_url':
      return `'${tool}' asked to send the user to ${refusal.url}, which is not https; the user was not asked`;
    case 'unsupported':
      return refusal.method === SAMPLING
        ? `'${tool}' asked this client to sample a model (sampling/createMessage), which this gateway declines`
        : `'${tool}' asked this client for '${refusal.method}', which this gateway cannot answer`;
    case 'max_rounds':
      return (
        `'${tool}' asked the user for input more than ${refusal.maxRounds} times (input.maxRounds); ` +
        'the call did not finish'
      );
    case 'too_large':
      return `'${tool}' asked a question too large to hand to the user (over ${refusal.maxBytes} bytes)`;
  }
}
