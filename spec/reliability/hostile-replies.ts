import fc from 'fast-check';
import { CLIENT_TOOL, TOOLS, wireText, type WireName } from './hostile-wires';

/**
 * Hostile upstream replies for each wire, as fast-check arbitraries: a reply of the wire's shape (JSON and its SSE
 * events) whose calls have non-string names and arguments, huge, repeated or missing ids, whose fields are missing or
 * of a wrong type, whose events are dropped, repeated, swapped, broken or out of order; now and then a reply of
 * another kind altogether (an error status, HTML, SSE to a JSON request).
 */

type Item = Record<string, unknown>;

/** What the scripted upstream writes: `json` to a `stream: false` turn, `sse` to a `stream: true` one. */
export interface HostileReply {
  status: number;
  json: string;
  sse: string;
}

const hostileValue = fc.oneof(
  { weight: 3, arbitrary: fc.anything({ maxDepth: 2 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, [], {}, '', 0, -1, 4294967294, true, '__proto__', [null]) },
);
const field = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });

const callId = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 9 }).map((n) => `fzr_${n}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(undefined, '', '__proto__', 'constructor', 'x.al1.forged', 'x.ap1.forged'),
  },
  { weight: 1, arbitrary: fc.constant('i'.repeat(70_000)) },
  { weight: 1, arbitrary: hostileValue },
);
const toolName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(TOOLS.lookup, TOOLS.flaky, CLIENT_TOOL, 'nope', '') },
  { weight: 1, arbitrary: hostileValue },
);
const argumentsText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>('{}', '{"q":"a"}', '{"a":', '[]', 'null') },
  { weight: 1, arbitrary: hostileValue },
);
const call = fc.record({ id: callId, name: toolName, arguments: argumentsText });
const calls = fc.array(call, { maxLength: 4 });
const text = field(fc.constantFrom('an answer', ''));

/** `item` with one of its fields dropped or replaced now and then */
const mutated = (item: fc.Arbitrary<Item>) =>
  fc.tuple(item, fc.option(fc.tuple(fc.nat(), fc.boolean(), hostileValue), { freq: 3 })).map(([whole, change]) => {
    if (!change) return whole;
    const [at, drop, value] = change;
    const keys = Object.keys(whole);
    const key = keys[at % keys.length];
    const { [key]: _, ...rest } = whole;
    return drop ? rest : { ...rest, [key]: value };
  });

const chatMessage = fc.tuple(text, calls).map(([content, made]) => ({ content, made }));

function chatJson(content: unknown, made: Item[]): Item {
  const toolCalls = made.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return {
    id: 'chatcmpl-fz',
    object: 'chat.completion',
    model: 'loop-fuzz',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, tool_calls: toolCalls },
        finish_reason: made.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  };
}

function chatEvents(content: unknown, made: Item[], index: fc.Arbitrary<unknown>): fc.Arbitrary<Item[]> {
  const chunk = (delta: Item, finish: unknown = null) => ({
    id: 'chatcmpl-fz',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return fc.array(index, { minLength: made.length, maxLength: made.length }).map((indexes) => [
    chunk({ role: 'assistant', content }),
    ...made.flatMap((c, i) => [
      chunk({
        tool_calls: [{ index: indexes[i], id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: indexes[i], function: { arguments: c.arguments } }] }),
    ]),
    chunk({}, made.length ? 'tool_calls' : 'stop'),
    { done: true },
  ]);
}

function responsesOutput(content: unknown, made: Item[]): Item[] {
  const message = {
    id: 'msg_fz',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: content, annotations: [] }],
  };
  return [
    message,
    ...made.map((c, i) => ({
      id: `fc_fz${i}`,
      type: 'function_call',
      status: 'completed',
      call_id: c.id,
      name: c.name,
      arguments: c.arguments,
    })),
  ];
}

const responseOf = (output: unknown[]) => ({
  id: 'resp_fz',
  object: 'response',
  status: 'completed',
  model: 'loop-fuzz',
  output,
  usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
});

function responsesEvents(output: Item[]): Item[] {
  const events: Item[] = [{ type: 'response.created', response: { ...responseOf([]), status: 'in_progress' } }];
  output.forEach((item, i) => {
    events.push({ type: 'response.output_item.added', output_index: i, item: { ...item, arguments: '' } });
    if (item.type === 'function_call')
      events.push({
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: i,
        delta: item.arguments,
      });
    else
      events.push({
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: i,
        content_index: 0,
        delta: (item.content as Item[])[0].text,
      });
    events.push({ type: 'response.output_item.done', output_index: i, item });
  });
  events.push({ type: 'response.completed', response: responseOf(output) });
  return events.map((event, i) => ({ ...event, sequence_number: i }));
}

function messagesContent(content: unknown, made: Item[]): Item[] {
  return [
    { type: 'text', text: content },
    ...made.map((c) => ({
      type: 'tool_use',
      id: c.id,
      name: c.name,
      input: typeof c.arguments === 'string' ? safeParse(c.arguments) : c.arguments,
    })),
  ];
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const messageOf = (content: unknown[]) => ({
  id: 'msg_fz',
  type: 'message',
  role: 'assistant',
  model: 'loop-fuzz',
  content,
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 3, output_tokens: 2 },
});

function messagesEvents(blocks: Item[]): fc.Arbitrary<Item[]> {
  return fc.tuple(...blocks.map((_, i) => eventIndex(i))).map((indexes): Item[] => [
    { type: 'message_start', message: messageOf([]) },
    ...blocks.flatMap((block, i): Item[] => {
      const at = indexes[i];
      if (block.type !== 'tool_use')
        return [
          { type: 'content_block_start', index: at, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: at, delta: { type: 'text_delta', text: block.text } },
          { type: 'content_block_stop', index: at },
        ];
      return [
        { type: 'content_block_start', index: at, content_block: { ...block, input: {} } },
        {
          type: 'content_block_delta',
          index: at,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
        { type: 'content_block_stop', index: at },
      ];
    }),
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 2 } },
    { type: 'message_stop' },
  ]);
}

/** the place each event names: its own most of the time, else any */
const eventIndex = (own: number) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.oneof(fc.nat(300), hostileValue) });

/** Dropped, repeated, swapped, broken and hostile events, in the order drawn. */
const edits = fc.array(
  fc.record({ op: fc.constantFrom('drop', 'repeat', 'swap', 'break', 'replace'), at: fc.nat(), value: hostileValue }),
  { maxLength: 3 },
);

function edited(events: Item[], changes: { op: string; at: number; value: unknown }[]): (Item | string)[] {
  const out: (Item | string)[] = [...events];
  for (const { op, at, value } of changes) {
    const i = at % Math.max(out.length, 1);
    if (op === 'drop') out.splice(i, 1);
    else if (op === 'repeat') out.splice(i, 0, out[i]);
    else if (op === 'swap' && i + 1 < out.length) [out[i], out[i + 1]] = [out[i + 1], out[i]];
    else if (op === 'break') out.splice(i, 0, '{"type": "broken", "index": ');
    else if (op === 'replace')
      out[i] = {
        type: (out[i] as Item | undefined)?.type,
        ...(typeof value === 'object' && value !== null ? value : { value }),
      };
  }
  return out;
}

function sseText(wire: WireName, events: (Item | string)[]): string {
  return events
    .map((event) => {
      if (typeof event === 'string') return `data: ${event}\n\n`;
      if (wire === 'chat') return event.done === true ? 'data: [DONE]\n\n' : `data: ${wireText(event)}\n\n`;
      return `event: ${String(event.type)}\ndata: ${wireText(event)}\n\n`;
    })
    .join('');
}

function wireReply(wire: WireName): fc.Arbitrary<HostileReply> {
  return chatMessage.chain(({ content, made }) => {
    const jsonBody =
      wire === 'chat'
        ? chatJson(content, made)
        : wire === 'responses'
          ? responseOf(responsesOutput(content, made))
          : messageOf(messagesContent(content, made));
    const events: fc.Arbitrary<Item[]> =
      wire === 'chat'
        ? chatEvents(
            content,
            made,
            fc.oneof({ weight: 6, arbitrary: fc.nat(3) }, { weight: 1, arbitrary: hostileValue }),
          )
        : wire === 'responses'
          ? fc.constant(responsesEvents(responsesOutput(content, made)))
          : messagesEvents(messagesContent(content, made));
    return fc.record({
      json: mutated(fc.constant(jsonBody)).map(wireText),
      sse: fc.tuple(events, edits).map(([all, changes]) => sseText(wire, edited(all, changes))),
      status: fc.constant(200),
    });
  });
}

const otherKind = fc.record({
  status: fc.constantFrom(200, 200, 400, 404, 429, 500, 502, 529),
  json: fc.oneof(
    fc.constantFrom(
      '',
      '<html>bad gateway</html>',
      'data: {"x":1}\n\n',
      '{"error": {"message": "scripted"}}',
      '{"type": "error", "error": {"type": "api_error", "message": "x"}}',
      '[]',
      'null',
    ),
    fc.string({ maxLength: 40 }),
  ),
  sse: fc.oneof(
    fc.constantFrom(
      '',
      '{}',
      'data: [DONE]\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ': only a comment\n\n',
    ),
    fc.string({ maxLength: 40 }),
  ),
});

/** A hostile reply of `wire`'s shape, now and then one of another kind. */
export const hostileReply = (wire: WireName): fc.Arbitrary<HostileReply> =>
  fc.oneof({ weight: 6, arbitrary: wireReply(wire) }, { weight: 1, arbitrary: otherKind });
