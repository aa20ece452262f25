import { refusalText, type Unanswered, type Unapproved } from '../person/refusal';
import { APPROVAL, INPUT, type AskedInput, type ReplayLog } from '../person/question';

/**
 * Why a call cannot run as the model asked: a tool outside the tree, arguments that are no JSON object, a tool held
 * back that no `tool_search` loaded yet, a `tool_search` without a query it can search for.
 */
export type Invalid =
  | { why: 'unknown_tool'; valid: string[]; unlisted?: string }
  | { why: 'arguments_not_string' }
  | { why: 'arguments_not_json'; error: string }
  | { why: 'arguments_not_object'; got: unknown }
  | { why: 'not_loaded' }
  | { why: 'bad_query'; problem: string };

/** An image a tool returned, as the next turn shows it. */
export interface ToolImage {
  mimeType: string;
  /** base64 */
  data: string;
}

/**
 * What became of one tool call. The kind decides what follows (an `ok` parent unlocks its children, anything else is
 * `is_error` on Messages; the kinds are the metrics' and spans' `outcome`); `toolOutcomeText` renders what the model
 * reads. `ok` and `tool_error` carry the tool's own result as the model reads it: rendered by `resultText` (a
 * failed one with `toolErrorText`), cut to `maxToolResultBytes`, as the judge's `context` surface left it.
 * `ok` also carries the tool's `structuredContent` (code mode's programs read it), unless the judge rewrote the result.
 * `pending`: not run, handed to the client for approval (`program`: a nested call of code mode's, with its program's
 * log); `asks`: the tool asked the person for input first
 * (`unanswered`: it did not get it); `not_run`: a call over `maxToolCallsPerTurn` that an
 * upstream holding the turn still needs an answer for; `approved_earlier`: a call approved and run in an earlier
 * request, whose result that request's loop kept.
 */
export type ToolOutcome =
  | { kind: 'ok'; text: string; images?: ToolImage[]; structured?: unknown }
  | { kind: 'tool_error'; text: string; images?: ToolImage[] }
  | { kind: 'refused'; tool: string; parent: string }
  | ({ kind: 'invalid'; tool: string } & Invalid)
  | { kind: 'repeated'; tool: string; count: number }
  | { kind: 'blocked'; reason: string }
  | { kind: 'timeout'; tool: string; seconds: number }
  | { kind: 'transport'; reason: string }
  | { kind: 'pending'; approval: { arguments: Record<string, unknown>; reason: string }; program?: ReplayLog }
  | ({ kind: 'unapproved'; tool: string } & Unapproved)
  | { kind: 'asks'; input: AskedInput }
  | ({ kind: 'unanswered'; tool: string } & Unanswered)
  | { kind: 'not_run'; tool: string }
  | { kind: 'approved_earlier'; tool: string };

/** How the hierarchy gate's refusal begins, and every other failure the model reads as a tool result. */
const LOCKED = '⛔';
const TOOL_ERROR = 'tool error:';

/** The text of every failure the model reads as a tool result, but the hierarchy gate's. */
export const toolErrorText = (problem: string): string => `${TOOL_ERROR} ${problem}`;

/**
 * Whether a tool result's text reads as one of the loop's failures. Only for a history the client wrote
 * (`trustClientHistory`), where the text is all there is: the loop's own outcomes, and a verified continuation's,
 * go by their kind.
 */
export const readsAsFailure = (text: string): boolean => text.startsWith(TOOL_ERROR) || text.startsWith(LOCKED);

/** The images a tool returned (`passImages`), for the next turn to see. */
export const outcomeImages = (outcome: ToolOutcome): ToolImage[] =>
  outcome.kind === 'ok' || outcome.kind === 'tool_error' ? (outcome.images ?? []) : [];

function invalidText(tool: string, invalid: Invalid): string {
  switch (invalid.why) {
    case 'unknown_tool':
      if (invalid.valid.length > 0)
        return toolErrorText(`unknown tool '${tool}'; valid tools: ${invalid.valid.join(', ')}`);
      if (invalid.unlisted !== undefined)
        return toolErrorText(`unknown tool '${tool}'; Trellis has not listed its tools yet (${invalid.unlisted})`);
      return toolErrorText(`unknown tool '${tool}'; this binding offers no tools`);
    case 'arguments_not_string':
      return toolErrorText(`arguments for '${tool}' must be a JSON object encoded as a string`);
    case 'arguments_not_json':
      return toolErrorText(`arguments for '${tool}' are not valid JSON (${invalid.error})`);
    case 'arguments_not_object':
      return toolErrorText(
        `arguments for '${tool}' must be a JSON object, ` +
          `got ${Array.isArray(invalid.got) ? 'an array' : JSON.stringify(invalid.got)}`,
      );
    case 'not_loaded':
      return toolErrorText(`'${tool}' is not loaded: call tool_search first`);
    case 'bad_query':
      return toolErrorText(`'${tool}' cannot search: ${invalid.problem}`);
  }
}

/** What the model reads as the call's result (`pending`: nothing yet, the client is asked first). */
export function toolOutcomeText(outcome: ToolOutcome): string {
  switch (outcome.kind) {
    case 'ok':
    case 'tool_error':
      return outcome.text;
    case 'refused':
      return `${LOCKED} '${outcome.tool}' is locked: call '${outcome.parent}' first.`;
    case 'invalid':
      return invalidText(outcome.tool, outcome);
    case 'repeated':
      return toolErrorText(
        `'${outcome.tool}' was already called with these arguments ${outcome.count} times; ` +
          'use the earlier result or change the arguments',
      );
    case 'blocked':
      return toolErrorText(`blocked by policy: ${outcome.reason}`);
    case 'timeout':
      return toolErrorText(`'${outcome.tool}' timed out after ${outcome.seconds}s`);
    case 'transport':
      return toolErrorText(outcome.reason);
    case 'pending':
    case 'asks':
      return '';
    case 'unapproved':
      return toolErrorText(refusalText(APPROVAL, outcome.tool, outcome));
    case 'unanswered':
      return toolErrorText(refusalText(INPUT, outcome.tool, outcome));
    case 'not_run':
      return toolErrorText(
        `'${outcome.tool}' was not run: the turn asked for more tool calls than the loop runs in one turn`,
      );
    case 'approved_earlier':
      return `[the result of '${outcome.tool}' is not kept: it ran in an earlier request, after a person approved it]`;
  }
}
