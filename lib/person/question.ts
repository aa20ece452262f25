import type { TokenKind } from '../shared/signed-token';
import type { StopReason } from '../shared/stop';

/**
 * A question to the person: the loop stops, hands the person something through the client, and resumes when the
 * answer comes. Its kinds differ in how they ask and what the answer does:
 * - an approval asks with a call to the client's approval tool (`{ tool, arguments, reason }`); a yes runs the call
 *   (approval.ts, approval-decision.ts, answers.ts);
 * - a tool's question (MCP input) asks with a call to the client's input tool (the question); the answers call the
 *   tool again (input.ts, input-answer.ts, input-decision.ts, answers.ts);
 * - the OAuth sign-in asks with a link in the answer's text and headers; signing in is the answer, the next request
 *   finds the user's connection (sign-in.ts).
 * What they share is written once: the stop the answer carries (lib/shared/stop.ts), the sealed id a question
 * travels in (sealed-id.ts, from the kind's record), the refusals of an id that does not open (`readRefusal`) and
 * the texts the model reads for every refusal, in the kind's words (refusal.ts), the ledger that takes each answer
 * once across the fleet (ledger.ts), the calls that hand questions to the person (hand-back.ts) and every step's log
 * line and metric (note.ts). A new kind's part of these is its record here.
 */
export interface QuestionKind {
  /** its name in the log (`agent-loop <name> <step>`), the metrics and the span */
  name: 'approval' | 'input' | 'sign-in';
  /** the stop of the loop's answer that asks it (`x-agent-loop-stop`) */
  stop: StopReason;
}

/** A kind whose question travels sealed in the id of the call that asks it (`<call id><tag><token>`). */
export interface SealedKind extends QuestionKind {
  name: 'approval' | 'input';
  /** between the model's own call id and the sealed token */
  tag: string;
  /** what the token is sealed for: one kind's token never opens as another's */
  token: TokenKind;
  /** the most a question seals (bytes of JSON): more is not handed to a person */
  maxBytes: number;
  /** the reason logged for an id that does not open */
  notAsked: string;
  /** its words in the refusals every sealed kind reads alike (refusal.ts) */
  words: RefusalWords;
}

/** A sealed kind's words in the sentences of its refusals, each shown in the sentence it completes. */
export interface RefusalWords {
  /** `'<tool>' needs <needs>, which this client cannot give` */
  needs: string;
  /** `the <question> of '<tool>' was already answered`, `… is not one this gateway <asked>`, `<question>s last 600s` */
  question: string;
  asked: string;
  /** `<answer> '<tool>' could not be recorded`, `<answer> '<tool>' came after <expired> (…); <afterExpiry>` */
  answer: string;
  expired: string;
  afterExpiry: string;
}

export const APPROVAL = {
  name: 'approval',
  stop: 'final',
  tag: '.ap1.',
  token: 'approval',
  maxBytes: 8 * 1024,
  notAsked: 'not an approval this gateway asked for',
  words: {
    needs: 'approval',
    question: 'approval',
    asked: 'asked for',
    answer: 'the approval of',
    expired: 'it expired',
    afterExpiry: 'the call did not run: call it again to ask anew',
  },
} as const satisfies SealedKind;

export const INPUT = {
  name: 'input',
  stop: 'input',
  tag: '.in1.',
  token: 'input',
  maxBytes: 12 * 1024,
  notAsked: 'not a question this gateway asked',
  words: {
    needs: 'input from the user',
    question: 'question',
    asked: 'asked',
    answer: 'the answer to',
    expired: 'its question expired',
    afterExpiry: 'call it again to ask anew',
  },
} as const satisfies SealedKind;

export const SIGN_IN = { name: 'sign-in', stop: 'authorization' } as const satisfies QuestionKind;

/** The steps of an approval, and of a tool's question, as the log and the metrics name them. */
export type ApprovalOutcome = 'asked' | 'granted' | 'denied' | 'expired' | 'refused';
export type InputOutcome = 'asked' | 'answered' | 'declined' | 'cancelled' | 'refused';

/** Why a sealed question's answer decides nothing: its id did not open (expired, or not asked here: moved, altered). */
export type ReadRefusal =
  | { outcome: 'expired'; refusal: { why: 'expired'; ttlSec: number }; reason: 'expired' }
  | { outcome: 'refused'; refusal: { why: 'not_asked' }; reason: string };

/** The refusal of an answer whose question's id did not open, in the words of its kind. */
export function readRefusal(kind: SealedKind, failed: string, ttlSec: number): ReadRefusal {
  return failed === 'expired'
    ? { outcome: 'expired', refusal: { why: 'expired', ttlSec }, reason: 'expired' }
    : { outcome: 'refused', refusal: { why: 'not_asked' }, reason: kind.notAsked };
}

/** One question of a tool's, as the person is asked it: the arguments of the call to the client's input tool. */
export type Question =
  | { tool: string; message: string; mode: 'form'; requestedSchema: Record<string, unknown> }
  | { tool: string; message: string; mode: 'url'; url: string };

/** A tool that asked the person (MCP `input_required`): its questions by the server's keys, and what goes back. */
export interface AskedInput {
  /** the call's arguments, as it ran: it runs again with them and the answers */
  arguments: Record<string, unknown>;
  questions: Record<string, Question>;
  requestState?: string;
  /** the MCP task that asked: the answers go to its `tasks/update` */
  taskId?: string;
  /** answers the Trellis gave itself (roots), sent back with the person's */
  answered: Record<string, unknown>;
  /** which question this is of the call's (1 for the first), bounded by `input.maxRounds` */
  round: number;
  /** a nested call of code mode's asked: its program's log, to resume it with the answers */
  program?: ReplayLog;
}

/** A call waiting for the person's input. */
export interface PendingInput extends AskedInput {
  callId: string;
  tool: string;
}

/** What a nested call gives the program: the value its `await` resolves to, or the text of the error it throws. */
export type NestedAnswer = { value: unknown } | { error: string };

/** One nested call of a program, as it made it: its tool, its arguments' digest, its answer (none: it never ran). */
export interface LoggedCall {
  name: string;
  args: string;
  answer?: NestedAnswer;
}

/**
 * A program that handed a nested call to the person, sealed in the hand-back's token: its code, its nested calls in
 * the order it made them and which of them waits. When the answer comes the program runs again from the start, each
 * call answered from here, so that no call runs twice and no sandbox is kept alive across requests.
 */
export interface ReplayLog {
  code: string;
  calls: LoggedCall[];
  waiting: number;
}
