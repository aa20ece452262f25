import { toolOutcomeText } from '../../tool-outcome';
import { earlierDecision, type ApprovalAnswer } from '../../loop/approval-decision';
import { approvedCallId } from '../../loop/approval-token';
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

/** A call to the loop's approval tool (arguments `{ tool, arguments, reason }`) as the request a Responses client is shown. */
export function approvalRequestOf(call: WireCall): ApprovalRequest {
  const asked = parsedArguments(call.arguments);
  return {
    id: call.id,
    tool: typeof asked.tool === 'string' ? asked.tool : 'the call',
    arguments: parsedObject(asked.arguments),
  };
}

/** A client's `mcp_approval_response` to one of this gateway's approval requests, read. */
export interface ApprovalReply {
  approvalId: string;
  /** the tool the request showed, to name in a refusal; the name in the approval's id is what runs */
  shownTool: string;
  answer: ApprovalAnswer;
}

export interface SettledItems {
  /** the input without the approval requests and responses, each decided earlier one answered as it was decided */
  input: Item[];
  /** the responses that decide now: those after the loop's last output */
  live: ApprovalReply[];
}

const isOurs = (id: unknown): id is string => approvedCallId(id) !== undefined;
const isRequest = (item: Item) => item.type === 'mcp_approval_request' && isOurs(item.id);
const isResponse = (item: Item) => item.type === 'mcp_approval_response' && isOurs(item.approval_request_id);

function answerOf(response: Item): ApprovalAnswer {
  if (response.approve === true) return { approved: true };
  return {
    approved: false,
    reason:
      typeof response.reason === 'string' && response.reason.trim() !== '' ? response.reason.trim() : 'no reason given',
  };
}

const parsedObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function parsedArguments(text: unknown): Record<string, unknown> {
  try {
    return parsedObject(JSON.parse(String(text)));
  } catch {
    return {};
  }
}

/** The model's `function_call` for an approval's call, where the loop's record of it did not come back. */
function callItem(callId: string, request: Item | undefined): Item {
  return {
    type: 'function_call',
    call_id: callId,
    name: String(request?.name ?? 'the call'),
    arguments: JSON.stringify(parsedArguments(request?.arguments)),
  };
}

/**
 * The client's input with this gateway's approval requests and the client's responses to them taken out. The
 * responses after the loop's last output (the trailing approval items) decide now (`live`); each call they are about
 * gets its model's `function_call` back when the restored work lacks it (unless the upstream holds it: `chained`). An older response, decided in an earlier
 * request, reads as what it decided. `undefined` when the input holds no response to this gateway.
 */
export function settleApprovalItems(input: readonly Item[], chained = false): SettledItems | undefined {
  if (!input.some(isResponse)) return undefined;
  let trailing = input.length;
  while (trailing > 0 && (isRequest(input[trailing - 1]) || isResponse(input[trailing - 1]))) trailing--;
  const requests = new Map(input.filter(isRequest).map((item) => [item.id as string, item]));
  const lastOutput = new Map<unknown, number>();
  for (const [i, item] of input.entries()) if (item.type === 'function_call_output') lastOutput.set(item.call_id, i);
  const out: Item[] = [];
  const called = new Set<unknown>();
  const keep = (item: Item) => {
    if (item.type === 'function_call') called.add(item.call_id);
    out.push(item);
  };
  const live: ApprovalReply[] = [];
  input.forEach((item, i) => {
    if (isRequest(item)) return;
    if (!isResponse(item)) return keep(item);
    const approvalId = item.approval_request_id as string;
    const callId = approvedCallId(approvalId) as string;
    const request = requests.get(approvalId);
    const shownTool = String(request?.name ?? 'the call');
    if (!chained && !called.has(callId)) keep(callItem(callId, request));
    if (i >= trailing) return void live.push({ approvalId, shownTool, answer: answerOf(item) });
    if ((lastOutput.get(callId) ?? -1) > i) return;
    const output = toolOutcomeText(earlierDecision(shownTool, answerOf(item)));
    out.push({ type: 'function_call_output', call_id: callId, output });
  });
  return { input: out, live };
}
