import { randomBytes } from 'node:crypto';
import { assistantTurns, nextId, usageOf, type Body, type ScriptedWire } from './wire';
import { messagesError } from '../wire/messages/error';

/**
 * The shapes of Anthropic's Messages API, as recordings of the real API in public SDKs' test fixtures hold them:
 * vercel/ai packages/anthropic/src/__fixtures__/anthropic-text.chunks.txt (message_start with the cache usage
 * fields, `ping` after the first block start, message_delta usage, message_stop), anthropic-tool-no-args.chunks.txt
 * (tool_use start with `input: {}`, a first empty `input_json_delta`), anthropic-clear-thinking.1.chunks.txt
 * (thinking_delta, one signature_delta before content_block_stop), and anthropics/anthropic-sdk-typescript
 * tests/api-resources/MessageStream.test.ts (event order, tool-use Message).
 */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** The API's error body. */
export const anthropicError = (status: number, message: string): Body => ({
  ...messagesError(status, message),
  request_id: `req_${randomBytes(12).toString('hex')}`,
});

export const toolUseId = (): string => `toolu_01${String(nextId()).padStart(22, 'A')}`;

/** A Message whole, as `POST /v1/messages` returns it. */
export function message(content: Body[], model: string, usage: Partial<MessagesUsage> = {}, stopReason?: string): Body {
  const counted = {
    input_tokens: 12,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 30,
    ...usage,
  };
  return {
    model,
    id: `msg_01${String(nextId()).padStart(22, 'Q')}`,
    type: 'message',
    role: 'assistant',
    content,
    stop_reason: stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      ...counted,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      service_tier: 'standard',
    },
  };
}

const pieces = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** The recorded event sequence of a streamed Message. */
export function messageEvents(whole: Body): Body[] {
  const {
    content,
    usage,
    stop_reason: stopReason,
    ...head
  } = whole as { content: Body[]; usage: MessagesUsage; stop_reason: string };
  const events: Body[] = [
    {
      type: 'message_start',
      message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    },
  ];
  content.forEach((block, index) => {
    const delta = (d: Body) => events.push({ type: 'content_block_delta', index, delta: d });
    if (block.type === 'text')
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    else if (block.type === 'thinking')
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
    else if (block.type === 'tool_use')
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
    else events.push({ type: 'content_block_start', index, content_block: block });
    if (index === 0) events.push({ type: 'ping' });
    if (block.type === 'text') pieces(block.text as string, 8).forEach((text) => delta({ type: 'text_delta', text }));
    if (block.type === 'thinking') {
      pieces(block.thinking as string, 8).forEach((thinking) => delta({ type: 'thinking_delta', thinking }));
      delta({ type: 'signature_delta', signature: block.signature });
    }
    if (block.type === 'tool_use')
      ['', ...pieces(JSON.stringify(block.input), 6)].forEach((partial) =>
        delta({ type: 'input_json_delta', partial_json: partial }),
      );
    events.push({ type: 'content_block_stop', index });
  });
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = usage;
  events.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens },
  });
  events.push({ type: 'message_stop' });
  return events;
}

/** Anthropic Messages, `POST .../messages`: a model turn is an assistant message. */
export const messagesWire: ScriptedWire = {
  name: 'messages',
  unreadable(body) {
    if (typeof body.model !== 'string') return 'model: Field required';
    if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return 'messages: at least one message is required';
    const bad = (body.messages as unknown[]).findIndex(
      (m) => (m as Body | null)?.role !== 'user' && (m as Body | null)?.role !== 'assistant',
    );
    return bad >= 0 ? `messages.${bad}.role: Input should be 'user' or 'assistant'` : undefined;
  },
  turnOf: (body) => assistantTurns(body.messages as Body[]),
  history: (body) => body.messages as Body[],
  json(turn, body) {
    const blocks = [
      ...(turn.content === undefined ? [] : [{ type: 'text', text: turn.content }]),
      ...(turn.toolCalls ?? []).map(({ name, arguments: input }) => ({
        type: 'tool_use',
        id: toolUseId(),
        name,
        input: input ?? {},
      })),
    ];
    const { inputTokens, outputTokens } = usageOf(turn);
    return message(blocks, body.model as string, { input_tokens: inputTokens, output_tokens: outputTokens });
  },
  events: (whole) =>
    messageEvents(whole).map((event) => ({ event: event.type as string, data: JSON.stringify(event) })),
  error: anthropicError,
};
