import { apiErrorBody } from '../shared/openai-error';
import { assistantTurns, nextId, usageOf, type Body, type ScriptedWire, type ToolCallStep } from './wire';

/** One reply of the model on chat completions: its text, its tool calls, its usage. */
export interface ChatReply {
  content?: string | null;
  toolCalls?: ToolCallStep[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** A chat completion as OpenAI's API returns it. */
export function completion(reply: ChatReply, model: string): Body {
  const toolCalls = reply.toolCalls?.map((call) => ({
    id: call.id ?? `call_${nextId()}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
  const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  return {
    id: `chatcmpl-${nextId()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content ?? null,
          ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls?.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** One `chat.completion.chunk` of a completion streamed. */
export function chunkOf(whole: Body, delta: Body, finish: string | null = null): Body {
  const { id, created, model } = whole;
  return { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] };
}

/**
 * The chunks of a completion streamed: the role, the text in pieces, each tool call's name then its arguments, the
 * finish reason, and a last chunk of `choices: []` with the usage (what `stream_options.include_usage` asks for).
 */
export function completionChunks(whole: Body): Body[] {
  const choice = (
    whole.choices as { message: { content: string | null; tool_calls?: unknown[] }; finish_reason: string }[]
  )[0];
  const chunk = (delta: Body, finish?: string) => chunkOf(whole, delta, finish);
  const out = [chunk({ role: 'assistant', content: '' })];
  const content = choice.message.content ?? '';
  for (let i = 0; i < content.length; i += 8) out.push(chunk({ content: content.slice(i, i + 8) }));
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    const { id, function: fn } = call as { id: string; function: { name: string; arguments: string } };
    out.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: fn.name, arguments: '' } }] }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: fn.arguments } }] }));
  });
  out.push(chunk({}, choice.finish_reason));
  out.push({ ...chunkOf(whole, {}), choices: [], usage: whole.usage });
  return out;
}

/** OpenAI's error body (chat completions and Responses). */
export const openAiError = (status: number, message: string): Body => apiErrorBody(status, message);

const isMessage = (message: unknown) =>
  typeof message === 'object' && message !== null && typeof (message as Body).role === 'string';

/** OpenAI chat completions, `POST .../chat/completions`: a model turn is an assistant message. */
export const chatWire: ScriptedWire = {
  name: 'chat',
  unreadable(body) {
    if (!Array.isArray(body.messages)) return "Missing required parameter: 'messages'.";
    const bad = body.messages.findIndex((message) => !isMessage(message));
    return bad >= 0 ? `Invalid value for 'messages[${bad}]': expected a message object with a 'role'.` : undefined;
  },
  turnOf: (body) => assistantTurns(body.messages as Body[]),
  history: (body) => body.messages as Body[],
  json(turn, body) {
    const { inputTokens, outputTokens } = usageOf(turn);
    return completion(
      { ...turn, usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens } },
      typeof body.model === 'string' ? body.model : 'scripted',
    );
  },
  events(whole, body) {
    const options = body.stream_options as { include_usage?: unknown } | undefined;
    const chunks = completionChunks(whole);
    const sent = options?.include_usage === true ? chunks : chunks.slice(0, -1);
    return [...sent.map((chunk) => ({ data: JSON.stringify(chunk) })), { data: '[DONE]' }];
  },
  error: openAiError,
};
