import { openAiError } from './chat';
import { nextId, usageOf, type Body, type ScriptedWire, type ToolCallStep } from './wire';

/**
 * The shapes OpenAI's Responses API records, as the AI SDK's test fixtures hold them (vercel/ai,
 * packages/openai/src/responses/__fixtures__/): a Response whole like `openai-reasoning-encrypted-content.1.json`
 * (a message of `output_text` parts, usage with its details), its event stream like
 * `issue-19493-gpt-5.1-tool-call.chunks.txt` (`response.created`, `response.in_progress`, `output_item.added`/`.done`,
 * `function_call_arguments.delta`/`.done`, `content_part.added`, `output_text.delta`/`.done`, `response.completed`,
 * each with its `sequence_number`).
 */
export const hexId = (): string => `${Date.now().toString(16)}${nextId().toString(16).padStart(8, '0')}`;

export const messageItem = (text: string): Body => ({
  id: `msg_${hexId()}`,
  type: 'message',
  status: 'completed',
  content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
  role: 'assistant',
});

export function functionCallItem(call: ToolCallStep & { callId?: string }): Body {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return {
    id: `fc_${hexId()}`,
    type: 'function_call',
    status: 'completed',
    arguments: args,
    call_id: call.callId ?? `call_${hexId()}`,
    name: call.name,
  };
}

/** A Response whole, as `POST /responses` returns it (`in_progress`: as `response.created` starts it). */
export function response(
  id: string,
  body: Body,
  output: Body[],
  usage: { input_tokens: number; output_tokens: number } = { input_tokens: 10, output_tokens: 5 },
): Body {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: null,
    model: typeof body.model === 'string' ? body.model : 'scripted',
    output,
    parallel_tool_calls: true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: 'none', summary: null },
    service_tier: 'default',
    store: body.store !== false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
    user: null,
    metadata: {},
  };
}

/** The events of one streamed Response, in the order OpenAI sends them. */
export function responseEvents(whole: Body): Body[] {
  const out: Body[] = [];
  const emit = (type: string, fields: Body) => out.push({ type, ...fields, sequence_number: out.length });
  const started = { ...whole, status: 'in_progress', output: [], usage: null };
  emit('response.created', { response: started });
  emit('response.in_progress', { response: started });
  (whole.output as Body[]).forEach((item, output_index) => {
    if (item.type === 'function_call') {
      emit('response.output_item.added', { item: { ...item, status: 'in_progress', arguments: '' }, output_index });
      const args = item.arguments as string;
      for (let i = 0; i < args.length; i += 6)
        emit('response.function_call_arguments.delta', {
          delta: args.slice(i, i + 6),
          item_id: item.id,
          obfuscation: 'H2d0mf8T42i5Ya',
          output_index,
        });
      emit('response.function_call_arguments.done', { arguments: args, item_id: item.id, output_index });
    } else if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0].text;
      emit('response.output_item.added', { item: { ...item, status: 'in_progress', content: [] }, output_index });
      emit('response.content_part.added', {
        item_id: item.id,
        output_index,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
      for (let i = 0; i < text.length; i += 8)
        emit('response.output_text.delta', {
          item_id: item.id,
          output_index,
          content_index: 0,
          delta: text.slice(i, i + 8),
          logprobs: [],
          obfuscation: 'jjAc3ToKgnr0u',
        });
      emit('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text, logprobs: [] });
      emit('response.content_part.done', {
        item_id: item.id,
        output_index,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text },
      });
    } else {
      emit('response.output_item.added', { item, output_index });
    }
    emit('response.output_item.done', { item, output_index });
  });
  emit('response.completed', { response: whole });
  return out;
}

/** Items the model wrote: one model turn is a run of them (reasoning, its message, its function calls). */
const modelItem = (item: Body) =>
  item.type === 'function_call' ||
  item.type === 'reasoning' ||
  (item.type !== 'function_call_output' && item.role === 'assistant');

/** The model turns in an input: each run of model items counts once. */
function turnsIn(input: Body[]): number {
  return input.filter((item, i) => modelItem(item) && !(i > 0 && modelItem(input[i - 1]))).length;
}

const inputOf = (body: Body): Body[] => (Array.isArray(body.input) ? (body.input as Body[]) : []);

/** Past this many responses kept, the oldest is forgotten first: a request chained on it is refused, as on the API. */
const MAX_KEPT = 10_000;

/** A response this model made, as a request chained on it carries on: its model turns and its whole conversation. */
interface Kept {
  turns: number;
  items: Body[];
}

/**
 * OpenAI Responses, `POST .../responses`: a model turn is a run of output items in the input, plus the turns of
 * the response it chains on (`previous_response_id`, which this model keeps as the API does).
 */
export function responsesWire(): ScriptedWire {
  const kept = new Map<string, Kept>();
  const chainedOn = (body: Body) =>
    typeof body.previous_response_id === 'string' ? kept.get(body.previous_response_id) : undefined;
  const history = (body: Body): Body[] => [
    ...(chainedOn(body)?.items ?? []),
    ...(typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : inputOf(body)),
  ];
  return {
    name: 'responses',
    unreadable(body) {
      if (typeof body.input !== 'string' && !Array.isArray(body.input)) return "Missing required parameter: 'input'.";
      const bad = inputOf(body).findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item));
      if (bad >= 0) return `Invalid value for 'input[${bad}]': expected an item object.`;
      return typeof body.previous_response_id === 'string' && !chainedOn(body)
        ? `Previous response with id '${body.previous_response_id}' not found.`
        : undefined;
    },
    turnOf: (body) => (chainedOn(body)?.turns ?? 0) + turnsIn(inputOf(body)),
    history,
    json(turn, body, turnIndex) {
      const output = [
        ...(turn.content === undefined ? [] : [messageItem(turn.content)]),
        ...(turn.toolCalls ?? []).map(functionCallItem),
      ];
      const id = `resp_${hexId()}`;
      if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
      kept.set(id, { turns: turnIndex + 1, items: [...history(body), ...output] });
      const { inputTokens, outputTokens } = usageOf(turn);
      return response(id, body, output, { input_tokens: inputTokens, output_tokens: outputTokens });
    },
    events: (whole) =>
      responseEvents(whole).map((event) => ({ event: event.type as string, data: JSON.stringify(event) })),
    error: openAiError,
  };
}
