import { answerOf, type ApprovalAnswer, type ApprovalReader } from '../../person/approval-decision';
import { textOf } from '../../telemetry/content';
import { approvedCallId } from '../../person/approval';
import { isObject } from '../../shared/fields';
import { parsedOrUndefined } from '../../shared/parsed-json';
import { inputCallId } from '../../person/input';

/** The model's call id a question to the person names: an approval's or a tool's question's; undefined: neither. */
export const askedCallId = (id: unknown): string | undefined => approvedCallId(id) ?? inputCallId(id);

/** The client's tools that ask the person: the approval tool, and the input tool (a tool's questions). */
export interface PersonTools {
  approval: string;
  input?: string;
}

export const personTools = (reader: ApprovalReader): PersonTools => ({
  approval: reader.tool,
  input: reader.input?.tool,
});

/** A call of this gateway's to one of the client's tools that ask the person, with the id of such a question. */
export const asksPerson = (name: unknown, id: unknown, tools: PersonTools): boolean =>
  (name === tools.approval && approvedCallId(id) !== undefined) ||
  (tools.input !== undefined && name === tools.input && inputCallId(id) !== undefined);

/** What a refusal names, and a put-back call is called, when the approval showed no tool. */
const UNNAMED = 'the call';

/** The call an approval is about, as the client was shown it (or, once granted, as the person approved it). */
export interface ShownCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** One approval in a follow-up's history: the loop's call to the approval tool, or the client's reply to it. */
export interface Exchange {
  /** `<call id>.ap1.<token>` */
  approvalId: string;
  /** the `{ tool, arguments }` the approval showed, as the wire read them (anything: the client sent them back) */
  shown: { tool?: unknown; arguments?: unknown };
  /** the client's answer; undefined: none came */
  answer?: ApprovalAnswer;
  /** the answer as the client wrote it (its JSON, or its text), which a tool's question reads */
  given?: unknown;
  /** it decides now; else it was decided in an earlier request and reads as what it decided */
  live: boolean;
}

/** The call an approval showed, from the `{ tool, arguments }` the client sent back. */
export function shownCall({ tool, arguments: args }: Exchange['shown']): ShownCall {
  return { tool: typeof tool === 'string' ? tool : UNNAMED, arguments: isObject(args) ? args : {} };
}

/** A tool result's content as the client wrote it: its JSON, or its text when it is no JSON. */
function givenOf(content: unknown): unknown {
  const text = textOf(content).trim();
  return parsedOrUndefined(text) ?? text;
}

/**
 * One approval asked in a tool call and answered (or not yet: `reply` undefined) by the client's tool result: its
 * content as the approval reads it (`answerOf`) and as the client wrote it (`givenOf`).
 */
export const answeredCall = (
  approvalId: string,
  shown: Exchange['shown'],
  reply: { content?: unknown; [field: string]: unknown } | undefined,
  live: boolean,
): Exchange => ({
  approvalId,
  shown,
  answer: reply && answerOf(reply.content),
  given: reply && givenOf(reply.content),
  live,
});

/** The `{ tool, arguments }` an approval call's JSON arguments showed. */
export function shownIn(json: unknown): Exchange['shown'] {
  const shown = parsedOrUndefined(json);
  return isObject(shown) ? shown : {};
}
