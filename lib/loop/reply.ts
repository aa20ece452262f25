import type { ChatCompletion, ChatMessage, ChatUsage } from '../types';

export function addUsage(total: ChatUsage | undefined, usage: ChatUsage | undefined): ChatUsage | undefined {
  if (!usage) return total;
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + (usage.prompt_tokens ?? 0),
    completion_tokens: (total?.completion_tokens ?? 0) + (usage.completion_tokens ?? 0),
    total_tokens: (total?.total_tokens ?? 0) + (usage.total_tokens ?? 0),
  };
}

/** The client's answer: a normal chat completion shaped like the last reply, with usage summed over all turns. */
export function finalCompletion(last: ChatCompletion, message: ChatMessage, finishReason: string, usage: ChatUsage | undefined): ChatCompletion {
  const [first] = last.choices;
  return {
    ...last,
    choices: [{ ...first, index: 0, message, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  };
}

export function contentOf(message: ChatMessage): string | undefined {
  return typeof message.content === 'string' && message.content.length > 0 ? message.content : undefined;
}
