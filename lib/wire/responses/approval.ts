import { toolOutcomeText } from '../../loop/tool-outcome';
import { parsedOrUndefined } from '../../shared/parsed-json';
import { deniedFor, type ApprovalAnswer, type ApprovalReply } from '../../person/approval-decision';
import { shownCall, shownIn } from '../kit/approval-exchange';
import { settleExchanges, type ApprovalHistory } from '../kit/approval-settle';
import { CallHolders } from '../kit/call-holders';
import { approvedCallId } from '../../person/approval';
import { inputCallId } from '../../person/input';
import type { WireCall } from '../../loop/wire';

type Item = Record<string, unknown>;

/** One call waiting for approval, as the Responses answer shows it. */
export interface ApprovalRequest {
  /** `<call id>.ap1.<token>` (the first also carrying the loop's work) */
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** A call waiting for approval as OpenAI's API emits it for a remote MCP tool: `server_label` is the binding. */
export function approvalRequestItem(request: ApprovalRequest, binding: string): Item {
  return {
    id: request.id,
    type: 'mcp_approval_request',
    arguments: JSON.stringify(request.arguments),
    name: request.tool,
    server_label: binding,
  };
}

/** A tool's question to the person as Responses shows a call of the client's own tool: a `function_call` item. */
export function questionItem(call: WireCall): Item {
  return { type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments, status: 'completed' };
}

/**
 * A call to the loop's approval tool (arguments `{ tool, arguments, reason }`) as the request a Responses client is
 * shown.
 */
export function approvalRequestOf(call: WireCall): ApprovalRequest {
  return { id: call.id, ...shownCall(shownIn(call.arguments)) };
}

export interface SettledItems {
  /** the input without the approval requests and responses, each decided earlier one answered as it was decided */
  input: Item[];
  /** the responses that decide now: those after the loop's last output */
  live: ApprovalReply[];
}

const isOurs = (id: unknown): id is string => approvedCallId(id) !== undefined;
const isQuestion = (item: Item) => item.type === 'function_call' && inputCallId(item.call_id) !== undefined;
const isRequest = (item: Item) => (item.type === 'mcp_approval_request' && isOurs(item.id)) || isQuestion(item);
const isAnswer = (item: Item) => item.type === 'function_call_output' && inputCallId(item.call_id) !== undefined;
const isResponse = (item: Item) =>
  (item.type === 'mcp_approval_response' && isOurs(item.approval_request_id)) || isAnswer(item);

const answerOf = (response: Item): ApprovalAnswer =>
  response.approve === true ? { approved: true } : deniedFor(response.reason);

/**
 * Responses' approval exchanges: this gateway's `mcp_approval_request` items and the client's
 * `mcp_approval_response` items to them, each response settling where it sits. The trailing ones (after the loop's
 * last output) decide now; each call they are about gets its model's `function_call` back when the restored work
 * lacks it, unless the upstream holds it (`chained`).
 */
function responsesApprovals(input: readonly Item[], chained: boolean): ApprovalHistory<Item> | undefined {
  if (!input.some(isResponse)) return undefined;
  let trailing = input.length;
  while (trailing > 0 && (isRequest(input[trailing - 1]) || isResponse(input[trailing - 1]))) trailing--;
  const requests = new Map(
    input.filter(isRequest).map((item) => [(isQuestion(item) ? item.call_id : item.id) as string, item]),
  );
  const lastOutput = new Map<unknown, number>();
  for (const [i, item] of input.entries()) if (item.type === 'function_call_output') lastOutput.set(item.call_id, i);
  const holders = new CallHolders<Item>((item) => (item.type === 'function_call' ? [item.call_id as string] : []));
  return {
    length: input.length,
    exchangesAt: (i) => {
      const item = input[i];
      if (isRequest(item)) return [];
      if (!isResponse(item)) return undefined;
      if (isAnswer(item)) {
        const asked = parsedOrUndefined(requests.get(item.call_id as string)?.arguments) as
          { tool?: unknown } | undefined;
        const given = parsedOrUndefined(item.output) ?? item.output;
        return [{ approvalId: item.call_id as string, shown: { tool: asked?.tool }, given, live: i >= trailing }];
      }
      const approvalId = item.approval_request_id as string;
      const request = requests.get(approvalId);
      return [
        {
          approvalId,
          shown: { tool: request?.name, arguments: parsedOrUndefined(request?.arguments) },
          answer: answerOf(item),
          live: i >= trailing,
        },
      ];
    },
    kept: (i) => input[i],
    holderOf: (out, callId) => holders.holderOf(out, callId),
    modelCall: (callId, call) =>
      chained
        ? undefined
        : { type: 'function_call', call_id: callId, name: call.tool, arguments: JSON.stringify(call.arguments) },
    answerEarlier: (out, _at, callId, outcome, i) => {
      // a later output carried its result
      if ((lastOutput.get(callId) ?? -1) > i) return;
      out.push({ type: 'function_call_output', call_id: callId, output: toolOutcomeText(outcome) });
    },
  };
}

/**
 * The client's input with this gateway's approval requests and the client's responses to them taken out: the
 * trailing responses decide now (`live`); an older one, decided in an earlier request, reads as what it decided.
 * `undefined` when the input holds no response to this gateway.
 */
export function settleApprovals(input: readonly Item[], chained = false): SettledItems | undefined {
  const history = responsesApprovals(input, chained);
  if (history === undefined) return undefined;
  const live: ApprovalReply[] = [];
  return { input: settleExchanges(history, (reply) => void live.push(reply)), live };
}
