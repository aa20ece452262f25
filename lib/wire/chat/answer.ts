import { textWithNote, type Answer } from '../../loop/reply';
import type { ChatCompletion, ChatMessage } from './types';
import { chatUsage } from '../../loop/turn-result';
import { toolCallOf } from './model-reply';

/** The id, created and model of the client's answer when no model reply lends its own. */
export interface AnswerIdentity {
  id: string;
  created: number;
  model: string;
}

/** The model's last message, its text replaced by the whole answer's text (every turn's). */
function withText(message: ChatMessage, text: string): ChatMessage {
  return { ...message, content: text === '' ? (message.content ?? null) : text };
}

/**
 * The assistant message the client gets and its finish reason: the model's last message whole, with every turn's
 * text; the client's own calls only, when they are handed back; the text and the note alone when a budget ended it;
 * the text and the calls to the client's approval tool when calls wait for a person.
 */
export function chatAnswer(answer: Answer): { message: ChatMessage; finishReason: string } {
  if (answer.approvals)
    return {
      message: {
        role: 'assistant',
        content: answer.text === '' ? null : answer.text,
        tool_calls: answer.approvals.map(toolCallOf),
      },
      finishReason: 'tool_calls',
    };
  const last = answer.last?.output as ChatMessage | undefined;
  if (answer.stop !== 'final' || !last)
    return { message: { role: 'assistant', content: textWithNote(answer) }, finishReason: 'stop' };
  if (!answer.handBack) return { message: withText(last, answer.text), finishReason: answer.last?.stop ?? 'stop' };
  const calls = last.tool_calls ?? [];
  return {
    message: {
      ...withText(last, answer.text),
      tool_calls: answer.handBack.map((call) => ({ ...calls[call.index], id: call.id })),
    },
    finishReason: 'tool_calls',
  };
}

/**
 * The client's JSON answer: a normal chat completion shaped like the last reply, with usage summed over all turns;
 * the reply's id, `created` and model only of their type (an upstream may leave them out), else the loop's own.
 */
export function finalAnswer(answer: Answer, identity: AnswerIdentity): ChatCompletion {
  const shape = (answer.last?.reply as ChatCompletion | undefined) ?? {
    ...identity,
    object: 'chat.completion',
    choices: [],
  };
  const [first] = shape.choices;
  const { message, finishReason } = chatAnswer(answer);
  return {
    ...shape,
    id: typeof shape.id === 'string' ? shape.id : identity.id,
    object: 'chat.completion',
    created: typeof shape.created === 'number' ? shape.created : identity.created,
    model: typeof shape.model === 'string' ? shape.model : identity.model,
    choices: [{ ...first, index: 0, message, finish_reason: finishReason }],
    ...(answer.usage ? { usage: chatUsage(answer.usage) } : {}),
  };
}
