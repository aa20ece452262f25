import { APPROVAL, INPUT } from '../../lib/person/question';
import { refusalText, type Unanswered, type Unapproved } from '../../lib/person/refusal';

describe('refusalText: what the model reads when a tool’s question went unanswered', () => {
  it.each<[Unanswered, string]>([
    [{ why: 'cannot_ask' }, "'pay' needs input from the user, which this client cannot give"],
    [{ why: 'declined' }, "'pay' needed input from the user, who declined"],
    [{ why: 'cancelled' }, "'pay' needed input from the user, who cancelled"],
    [
      { why: 'invalid_answer', field: 'account', problem: 'must be string' },
      "the user's answer to 'pay' does not fit its question: 'account' must be string; the tool was not called with it",
    ],
    [
      { why: 'secret', field: 'password' },
      "'pay' asked the user for a password, secret or token in a form ('password'), which MCP forbids; the user was not asked",
    ],
    [
      { why: 'insecure_url', url: '"ftp://x"' },
      `'pay' asked to send the user to "ftp://x", which is not https; the user was not asked`,
    ],
    [
      { why: 'unsupported', method: 'sampling/createMessage' },
      "'pay' asked this client to sample a model (sampling/createMessage), which this gateway declines",
    ],
    [{ why: 'unsupported', method: 'x/y' }, "'pay' asked this client for 'x/y', which this gateway cannot answer"],
    [
      { why: 'max_rounds', maxRounds: 3 },
      "'pay' asked the user for input more than 3 times (input.maxRounds); the call did not finish",
    ],
    [{ why: 'too_large', maxBytes: 10 }, "'pay' asked a question too large to hand to the user (over 10 bytes)"],
    [
      { why: 'expired', ttlSec: 600 },
      "the answer to 'pay' came after its question expired (questions last 600s); call it again to ask anew",
    ],
    [{ why: 'already_answered' }, "the question of 'pay' was already answered; the call does not run again"],
    [{ why: 'unrecorded' }, "the answer to 'pay' could not be recorded; ask again"],
    [{ why: 'not_asked' }, "the question of 'pay' is not one this gateway asked; the call did not run"],
  ])('%j', (unanswered, text) => {
    expect(refusalText(INPUT, 'pay', unanswered)).toBe(text);
  });
});

describe('refusalText: what the model reads when a call’s approval decided nothing', () => {
  it.each<[Unapproved, string]>([
    [{ why: 'cannot_ask' }, "'rm' needs approval, which this client cannot give"],
    [
      { why: 'arguments_too_long', maxBytes: 8192 },
      "'rm' needs approval, but its arguments are too long to show a person (over 8192 bytes)",
    ],
    [{ why: 'denied', reason: 'no answer came' }, "'rm' was not approved: no answer came"],
    [
      { why: 'expired', ttlSec: 600 },
      "the approval of 'rm' came after it expired (approvals last 600s); the call did not run: call it again to ask anew",
    ],
    [{ why: 'already_answered' }, "the approval of 'rm' was already answered; the call does not run again"],
    [{ why: 'unrecorded' }, "the approval of 'rm' could not be recorded; ask again"],
    [{ why: 'not_asked' }, "the approval of 'rm' is not one this gateway asked for; the call did not run"],
  ])('%j', (unapproved, text) => {
    expect(refusalText(APPROVAL, 'rm', unapproved)).toBe(text);
  });
});
