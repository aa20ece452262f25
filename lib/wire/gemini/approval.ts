import { toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { askedCallId, asksPerson, answeredCall, type PersonTools } from '../kit/approval-exchange';
import type { ApprovalHistory } from '../kit/approval-settle';
import { settledIn } from '../kit/history';
import { allAsking, answerBeside, lastIn, withoutAnswers, type PartsShape } from '../kit/approval-parts';
import { isObject } from '../../shared/fields';
import { partsOf } from './request';
import { isCall, type Content, type Part } from './types';

const calls = (content: Content | undefined) => partsOf(content).filter(isCall);

/** The signature Google documents for a call part the model did not make (or whose own signature is lost). */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/**
 * The client's answer to an approval or a tool's question, as the loop reads it: `{ output: { approved, reason? } }`
 * or `{ output: { action, content? } }` (or the fields bare, or a text).
 */
function answerText(response: unknown): string {
  const fields = isObject(response) ? response : {};
  const said = 'output' in fields ? fields.output : fields;
  return typeof said === 'string' ? said : (JSON.stringify(said) ?? '');
}

/** The calls asking the person (approvals, a tool's questions) of a model content that holds no other, or undefined. */
function approvalCalls(content: Content, tools: PersonTools): Part[] | undefined {
  if (content.role !== 'model') return undefined;
  return allAsking(calls(content), (part) => asksPerson(part.functionCall.name, part.functionCall.id, tools));
}

const parts: PartsShape<Content, Part> = {
  partsOf,
  withParts: (content, kept) => (content ? { ...content, parts: kept } : { role: 'user', parts: kept }),
  roleOf: (content) => content.role,
  user: 'user',
};

/**
 * Where in `out` the model content is that made call `callId`: the one whose call has that id, else (Gemini 2.5 and 3
 * send none) the latest model content with calls, which the loop asked approvals for at the end of its turn; -1: none.
 */
function holderOf(out: readonly Content[], callId: string): number {
  let latest = -1;
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].role !== 'model') continue;
    const made = calls(out[i]);
    if (made.some((part) => part.functionCall.id === callId)) return i;
    if (latest < 0 && made.length > 0 && made.some((part) => part.functionCall.id === undefined)) latest = i;
  }
  return latest;
}

// the model's calls carry no id on Gemini 2.5 and 3: their answers are known by the tool's name then
const keyOf = (response: { id?: string; name?: string }) => response.id ?? `name:${response.name ?? ''}`;

/** Where each call's last answer (other than an approval's) stands in `contents`, by the call's key. */
function lastAnswers(contents: readonly Content[], approvalIds: ReadonlySet<unknown>): Map<string, number> {
  const last = new Map<string, number>();
  contents.forEach((content, i) =>
    partsOf(content).forEach(({ functionResponse: response }) => {
      if (response && !approvalIds.has(response.id)) last.set(keyOf(response), i);
    }),
  );
  return last;
}

/**
 * Gemini's approval exchanges: a model content of `functionCall` parts of the approval tool, the client's
 * `functionResponse` parts answering them in the next content. The latest decide now; an older one's answer goes
 * beside the turn's other answers (Gemini wants all of a turn's responses in one content).
 */
function geminiApprovals(contents: readonly Content[], tools: PersonTools): ApprovalHistory<Content> | undefined {
  const asked = contents.map((content) => approvalCalls(content, tools));
  if (!asked.some(Boolean)) return undefined;
  const latest = lastIn(contents, 'model');
  const approvalIds = new Set(asked.flatMap((made) => (made ?? []).map((part) => part.functionCall?.id)));
  const lastAnswer = lastAnswers(contents, approvalIds);
  // the same ask sent again (a client that repeats the exchange): its last copy answers the call, the earlier none
  const lastAsked = new Map<unknown, number>();
  asked.forEach((made, i) => made?.forEach((part) => lastAsked.set(askedCallId(part.functionCall?.id), i)));
  const answersAfter = (i: number) =>
    new Map(
      partsOf(contents[i + 1]).flatMap((part) => (part.functionResponse ? [[part.functionResponse.id, part]] : [])),
    );
  return {
    length: contents.length,
    exchangesAt: (i) => {
      const answers = asked[i] && answersAfter(i);
      return asked[i]?.map((part) => {
        const id = part.functionCall?.id as string;
        const answer = answers?.get(id)?.functionResponse;
        const shown = isObject(part.functionCall?.args) ? part.functionCall.args : {};
        return answeredCall(id, shown, answer && { content: answerText(answer.response) }, i === latest);
      });
    },
    kept: (i) =>
      withoutAnswers(
        contents[i],
        parts,
        (part) => !!part.functionResponse && approvalIds.has(part.functionResponse.id),
      ),
    holderOf,
    // the model's own part (its signature) did not come back: Gemini 3 refuses a call part without a signature
    modelCall: (_callId, call) => ({
      role: 'model',
      parts: [{ functionCall: { name: call.tool, args: call.arguments }, thoughtSignature: SKIP_SIGNATURE }],
    }),
    answerEarlier: (out, at, callId, outcome, i) => {
      const response = responseTo(out[at], callId, outcome);
      // a later content carried its answer (the loop's own work of a later request), or a later copy of the ask will
      if ((lastAnswer.get(keyOf(response)) ?? -1) > i || (lastAsked.get(callId) ?? -1) > i) return;
      const text = toolOutcomeText(outcome);
      const answer: Part = {
        functionResponse: {
          ...response,
          response: outcome.kind === 'approved_earlier' ? { output: text } : { error: text },
        },
      };
      answerBeside(out, at, answer, parts);
    },
  };
}

/** Whom an older approval's answer names: the model's call by its id where `holder` gave it one, and the tool. */
function responseTo(holder: Content, callId: string, outcome: ToolOutcome) {
  const modelId = calls(holder).some((part) => part.functionCall.id === callId) ? { id: callId } : {};
  return { ...modelId, name: 'tool' in outcome ? String(outcome.tool) : '' };
}

/**
 * Gemini's approval exchanges (the loop's `functionCall` of the approval tool, the client's `functionResponse`) taken
 * out, as on the other wires: the latest decide now; an older one reads as what it decided. `undefined` when there is
 * none.
 */
export const settleApprovals = settledIn('contents', geminiApprovals);
