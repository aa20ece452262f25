import type { Request } from 'express';
import type { ChatCompletion, ChatMessage, JudgeContext, JudgeInput } from '../../lib/types';

export function toolCall(tool: string, args: Record<string, unknown>, messages: ChatMessage[] = []): JudgeInput {
  return { surface: 'tool_call', binding: 'docs', tool, arguments: args, messages };
}

export function toolResult(tool: string, result: string, args: Record<string, unknown> = {}): JudgeInput {
  return { surface: 'context', binding: 'docs', tool, arguments: args, result };
}

async function noCompletion(): Promise<ChatCompletion> {
  throw new Error('this judge must not call a model');
}

export function judgeContext(
  overrides: Partial<JudgeContext & { loopId: string }> = {},
): JudgeContext & { loopId: string } {
  return {
    signal: new AbortController().signal,
    req: {} as Request,
    complete: noCompletion,
    loopId: 'loop-1',
    ...overrides,
  };
}
