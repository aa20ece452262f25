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

const SAMPLING = 'sampling/createMessage';

/** What the model reads for a tool whose question went unanswered, and the tool did not finish. */
export function unansweredText(tool: string, unanswered: Unanswered): string {
  switch (unanswered.why) {
    case 'cannot_ask':
      return `'${tool}' needs input from the user, which this client cannot give`;
    case 'declined':
    case 'cancelled':
      return `'${tool}' needed input from the user, who ${unanswered.why}`;
    case 'invalid_answer':
      return (
        `the user's answer to '${tool}' does not fit its question: '${unanswered.field}' ${unanswered.problem}; ` +
        'the tool was not called with it'
      );
    case 'secret':
      return (
        `'${tool}' asked the user for a password, secret or token in a form ('${unanswered.field}'), ` +
        'which MCP forbids; the user was not asked'
      );
    case 'insecure_url':
      return `'${tool}' asked to send the user to ${unanswered.url}, which is not https; the user was not asked`;
    case 'unsupported':
      return unanswered.method === SAMPLING
        ? `'${tool}' asked this client to sample a model (sampling/createMessage), which this gateway declines`
        : `'${tool}' asked this client for '${unanswered.method}', which this gateway cannot answer`;
    case 'max_rounds':
      return (
        `'${tool}' asked the user for input more than ${unanswered.maxRounds} times (input.maxRounds); ` +
        'the call did not finish'
      );
    case 'too_large':
      return `'${tool}' asked a question too large to hand to the user (over ${unanswered.maxBytes} bytes)`;
    case 'expired':
      return (
        `the answer to '${tool}' came after its question expired (questions last ${unanswered.ttlSec}s); ` +
        'call it again to ask anew'
      );
    case 'already_answered':
      return `the question of '${tool}' was already answered; the call does not run again`;
    case 'unrecorded':
      return `the answer to '${tool}' could not be recorded; ask again`;
    case 'not_asked':
      return `the question of '${tool}' is not one this gateway asked; the call did not run`;
  }
}
