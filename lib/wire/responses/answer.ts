import { textWithNote, type Answer } from '../../loop/reply';
import { approvalRequestItem, approvalRequestOf, questionItem } from './approval';
import { inputCallId } from '../../person/input';
import { isCallItem, isObject, messageText, type ResponseItem } from './types';
import type { TokenUsage } from '../../loop/wire';

/**
 * The client's Response's id (the loop's, on every event of a stream), and its creation time and model when no model
 * reply lends its own.
 */
export interface ResponseIdentity {
  id: string;
  createdAt: number;
  model: string;
  /** the binding: the `server_label` of the approval requests */
  binding: string;
  /** the tools the client declared, which its Response echoes (the upstream's echoes the binding's too) */
  tools: unknown[];
  /** the id the client chained on (its `previous_response_id`), null when it chained on none */
  previousResponseId: string | null;
}

export const responseUsage = (usage: TokenUsage) => ({
  input_tokens: usage.input,
  output_tokens: usage.output,
  total_tokens: usage.total,
});

export function messageItem(id: string, text: string, status = 'completed'): ResponseItem {
  return { id, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

/**
 * The client's output items: one assistant message with every turn's text (the model's own message item, whole,
 * when it alone says all of it and `ownMessage` is not asked for), then the last turn's other items: on a hand-back
 * its reasoning and the client's calls (the first carrying the loop's work), on calls waiting for a person their
 * `mcp_approval_request` items, otherwise only what the upstream ran
 * itself (web searches and the like). A budget's answer is the text and its note.
 */
export function answerOutput(answer: Answer, identity: ResponseIdentity, ownMessage: boolean): ResponseItem[] {
  const messageId = `msg_${identity.id}`;
  const last = (answer.last?.output as ResponseItem[] | undefined) ?? [];
  const messages = last.filter((item) => item.type === 'message');
  const whole =
    !ownMessage && answer.stop === 'final' && messages.length === 1 && messageText(messages[0]) === answer.text;
  const text = textWithNote(answer);
  const message = whole ? messages : text === '' ? [] : [messageItem(messageId, text)];
  if (answer.stop !== 'final' && answer.stop !== 'input') return message;
  // the turn's calls and reasoning travel in the first request's id, with the loop's work
  if (answer.approvals)
    return [
      ...message,
      ...answer.approvals.map((call) =>
        inputCallId(call.id) === undefined
          ? approvalRequestItem(approvalRequestOf(call), identity.binding)
          : questionItem(call),
      ),
    ];
  const handed = new Map((answer.handBack ?? []).map((call) => [call.index, call.id]));
  const rest = last.flatMap((item, index) => {
    if (item.type === 'message') return [];
    const id = handed.get(index);
    if (id !== undefined) return [{ ...item, call_id: id }];
    if (isCallItem(item) || (item.type === 'reasoning' && !answer.handBack)) return [];
    return [item];
  });
  return [...message, ...rest];
}

/**
 * The client's Response: shaped like the last reply, with the loop's id (the one a stream names from its first event,
 * before the last reply has one) and usage summed. The reply's `object`, creation time, model and usage pass on only
 * of their type (an upstream's `object: null` is never the client's), else the loop's own. Its `tools` are the
 * client's: the binding's stay inside.
 */
export function finalAnswer(
  answer: Answer | undefined,
  identity: ResponseIdentity,
  output: ResponseItem[],
): ResponseItem {
  const last = answer?.last?.reply;
  const shape: ResponseItem = isObject(last)
    ? last
    : { id: identity.id, object: 'response', created_at: identity.createdAt, model: identity.model };
  const status = answer?.stop === 'final' && typeof shape.status === 'string' ? shape.status : 'completed';
  const own = {
    id: identity.id,
    object: 'response',
    ...(shape.created_at === undefined || typeof shape.created_at === 'number'
      ? {}
      : { created_at: identity.createdAt }),
    model: typeof shape.model === 'string' ? shape.model : identity.model,
    ...('tools' in shape ? { tools: identity.tools } : {}),
    // the last reply chains on the loop's turn before it, an upstream id the client never saw
    previous_response_id: identity.previousResponseId,
  };
  return {
    ...shape,
    ...own,
    status,
    error: null,
    output,
    usage: answer?.usage ? responseUsage(answer.usage) : isObject(shape.usage) ? shape.usage : null,
  };
}
