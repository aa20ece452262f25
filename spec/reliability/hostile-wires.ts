import fc from 'fast-check';
import type { WireName as AnyWire } from '../../lib/wire/wires';

/** The wires this file draws for; Gemini's hostile inputs are in hostile-gemini.ts, driven by hostile-gemini.spec.ts. */
type WireName = Exclude<AnyWire, 'gemini'>;

/**
 * Hostile inputs for the three front doors, as fast-check arbitraries: client bodies (valid requests with fields
 * of every wrong type, prototype keys, deep or huge values, histories with forged ids) and upstream replies (JSON
 * and SSE of each wire with calls of every wrong shape, events dropped, repeated, swapped, broken).
 */

export type { WireName };

/** The binding's tools, named so that no drawn value takes them by chance. */
export const TOOLS = { lookup: 'fz_lookup', flaky: 'fz_flaky' };
export const MODEL = 'loop-fuzz';
/** the client's own function: a call to it ends the loop, handed back */
export const CLIENT_TOOL = 'client_fn';

/** Raw JSON texts a drawn value stands for: what `JSON.stringify` cannot write (own `__proto__` keys) or should not be drawn each time. */
const RAW = [
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  `${'['.repeat(3_000)}${']'.repeat(3_000)}`,
  `${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}`,
  JSON.stringify('x'.repeat(300_000)),
];
const rawValue = fc.nat(RAW.length - 1).map((i) => `@@raw${i}@@`);

/** The body as it goes on the wire, with each raw stand-in put back. */
export const wireText = (value: unknown): string =>
  JSON.stringify(value).replace(/"@@raw(\d+)@@"/g, (_, i: string) => RAW[Number(i)]);

const hostileValue = fc.oneof(
  { weight: 4, arbitrary: fc.anything({ maxDepth: 2 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, [], {}, '', 0, -1, 1e308, true, '__proto__', [null], [[]], 'constructor'),
  },
  { weight: 1, arbitrary: rawValue },
);
/** the valid value most of the time, else a hostile one, else none at all */
const field = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: hostileValue });

/** Ids a history or a reply gives its calls: repeated, forged continuations and approvals, huge, of other types. */
const callId = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      'dup_1',
      'dup_1',
      'call_9.al1.AAAAforged',
      'toolu_9.ap1.BBBBforged',
      '__proto__',
      'constructor',
      '',
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constant('i'.repeat(70_000)) },
  { weight: 1, arbitrary: hostileValue },
);
const toolName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(TOOLS.lookup, TOOLS.flaky, CLIENT_TOOL, 'nope', '') },
  { weight: 1, arbitrary: hostileValue },
);
const argumentsText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>('{}', '{"q":"a"}', '{"a":', '[]', 'null', '"s"') },
  { weight: 1, arbitrary: hostileValue },
);
const input = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>({}, { q: 'a' }) },
  { weight: 1, arbitrary: hostileValue },
);
const list = <T>(item: fc.Arbitrary<T>) => fc.array(item, { maxLength: 4 });
const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields, { requiredKeys: [] });

const USER = {
  chat: { role: 'user', content: 'hi' },
  responses: { type: 'message', role: 'user', content: 'hi' },
  messages: { role: 'user', content: 'hi' },
};

const historyItem: Record<WireName, fc.Arbitrary<unknown>> = {
  chat: fc.oneof(
    fc.record({
      role: fc.constant('assistant'),
      content: fc.constant(null),
      tool_calls: field(
        list(
          partial({
            id: callId,
            type: fc.constant('function'),
            function: field(partial({ name: toolName, arguments: argumentsText })),
          }),
        ),
      ),
    }),
    fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: field(fc.string()) }),
    fc.record({ role: field(fc.constantFrom('user', 'system', 'developer')), content: hostileValue }),
    hostileValue,
  ),
  responses: fc.oneof(
    partial({
      type: fc.constant('function_call'),
      call_id: callId,
      name: toolName,
      arguments: argumentsText,
      id: callId,
    }),
    partial({ type: fc.constant('function_call_output'), call_id: callId, output: field(fc.string()) }),
    partial({ type: fc.constant('mcp_approval_response'), approval_request_id: callId, approve: field(fc.boolean()) }),
    fc.record({
      type: field(fc.constantFrom('message', 'reasoning', 'custom_tool_call')),
      role: field(fc.constantFrom('user', 'assistant')),
      content: hostileValue,
    }),
    hostileValue,
  ),
  messages: fc.oneof(
    fc.record({
      role: fc.constant('assistant'),
      content: field(
        list(
          partial({
            type: fc.constantFrom('tool_use', 'text', 'thinking'),
            id: callId,
            name: toolName,
            input,
            text: field(fc.string()),
          }),
        ),
      ),
    }),
    fc.record({
      role: fc.constant('user'),
      content: field(
        list(
          partial({
            type: fc.constant('tool_result'),
            tool_use_id: callId,
            content: field(fc.string()),
            is_error: hostileValue,
          }),
        ),
      ),
    }),
    fc.record({ role: field(fc.constantFrom('user', 'assistant')), content: hostileValue }),
    hostileValue,
  ),
};

/** the conversation: often just the user's question; else a drawn history, with or without the question after it */
const conversation = (wire: WireName) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant([USER[wire]]) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(list(historyItem[wire]), fc.boolean())
        .map(([items, ask]) => (ask ? [...items, USER[wire]] : items)),
    },
    { weight: 1, arbitrary: hostileValue },
  );

const clientTool = {
  chat: { type: 'function', function: { name: CLIENT_TOOL, parameters: { type: 'object' } } },
  responses: { type: 'function', name: CLIENT_TOOL, parameters: { type: 'object' } },
  messages: { name: CLIENT_TOOL, input_schema: { type: 'object' } },
};
const tools = (wire: WireName) =>
  field(
    fc.oneof(
      fc.constant([clientTool[wire]]),
      list(
        fc.oneof(
          fc.constant(clientTool[wire]),
          partial({ type: hostileValue, name: toolName, function: field(partial({ name: toolName })) }),
        ),
      ),
    ),
  );
const toolChoice = field(
  fc.constantFrom<unknown>(
    'auto',
    'required',
    'none',
    { type: 'function', name: TOOLS.lookup },
    { type: 'tool', name: CLIENT_TOOL },
    { type: 'any' },
  ),
);
const stream = fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: hostileValue });
const model = fc.oneof({ weight: 6, arbitrary: fc.constant(MODEL) }, { weight: 1, arbitrary: hostileValue });
const tokens = field(fc.integer({ min: 1, max: 4096 }));

/** A client's body for `wire`: a valid request with any of its fields dropped or of a wrong type; or with just one. */
export function clientBody(wire: WireName): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(anyFields(wire), oneField(wire));
}

/** A valid request (its history drawn) with one field of a wrong type: the loop runs on most of them. */
function oneField(wire: WireName): fc.Arbitrary<Record<string, unknown>> {
  const conversationKey = wire === 'responses' ? 'input' : 'messages';
  const valid = fc.record({
    model: fc.constant(MODEL),
    stream: fc.boolean(),
    [conversationKey]: fc.array(historyItem[wire], { maxLength: 3 }).map((items) => [...items, USER[wire]]),
    tools: fc.constant([clientTool[wire]]),
    ...(wire === 'responses' ? {} : { max_tokens: fc.constant(256) }),
  });
  const keys = [
    'stream',
    'tools',
    'tool_choice',
    wire === 'responses' ? 'max_output_tokens' : 'max_tokens',
    wire === 'chat' ? 'stream_options' : 'metadata',
    'user',
  ];
  return fc
    .tuple(valid, fc.constantFrom(...keys), hostileValue)
    .map(([body, key, value]) => ({ ...body, [key]: value }));
}

function anyFields(wire: WireName): fc.Arbitrary<Record<string, unknown>> {
  const shared = { model, stream, tools: tools(wire), tool_choice: toolChoice };
  if (wire === 'chat')
    return partial({
      ...shared,
      messages: conversation(wire),
      max_tokens: tokens,
      n: field(fc.constant(1)),
      stream_options: hostileValue,
    });
  if (wire === 'responses') {
    return partial({
      ...shared,
      input: fc.oneof(fc.constant('hi'), conversation(wire)),
      max_output_tokens: tokens,
      previous_response_id: hostileValue,
      instructions: field(fc.string()),
      background: hostileValue,
    });
  }
  return partial({
    ...shared,
    messages: conversation(wire),
    max_tokens: tokens,
    system: field(fc.string()),
    thinking: hostileValue,
  });
}

/** A well-formed request for `wire` asking `question`, with the client's own function tool. */
export function askingBody(wire: WireName, question: string, streamed: boolean): Record<string, unknown> {
  if (wire === 'responses') return { model: MODEL, stream: streamed, input: question, tools: [clientTool[wire]] };
  return {
    model: MODEL,
    stream: streamed,
    max_tokens: 256,
    messages: [{ role: 'user', content: question }],
    tools: [clientTool[wire]],
  };
}

/** How a follow-up mangles the hand-back's token and its exchange (`where`: on the call, its answer, or both). */
export interface TokenEdit {
  how: 'none' | 'flip' | 'cut' | 'append' | 'strip';
  at: number;
  where: 'both' | 'call' | 'answer';
  /** the call and its answer sent this many times */
  copies: number;
  answered: boolean;
  /** an answer for an id no one issued beside it */
  stray: boolean;
}

export const tokenEdit: fc.Arbitrary<TokenEdit> = fc.record({
  how: fc.constantFrom('none', 'none', 'flip', 'cut', 'append', 'strip'),
  at: fc.nat(),
  where: fc.constantFrom('both', 'call', 'answer'),
  copies: fc.integer({ min: 1, max: 3 }),
  answered: fc.boolean(),
  stray: fc.boolean(),
});

const TAG = /\.a[lp]1\./;

export function editedId(id: string, { how, at }: TokenEdit): string {
  const token = id.search(TAG);
  if (how === 'none' || token < 0) return id;
  if (how === 'strip') return id.slice(0, token);
  if (how === 'append') return `${id}.al1.AAAA`;
  const i = token + 5 + (at % Math.max(id.length - token - 5, 1));
  if (how === 'cut') return id.slice(0, i);
  return `${id.slice(0, i)}${id[i] === 'A' ? 'B' : 'A'}${id.slice(i + 1)}`;
}

type Item = Record<string, unknown>;

/** The client's side of a follow-up: its model and tools, the text it answers the call with (or, on Responses, its `approve`). */
export interface Answering {
  model: string;
  tool: string;
  text: unknown;
  approve?: unknown;
}

const HAND_BACK: Answering = { model: MODEL, tool: CLIENT_TOOL, text: 'sunny' };

/** The client's tools in `wire`'s shape: one function named `name`. */
export const toolsOf = (wire: WireName, name: string) => [
  wire === 'chat'
    ? { ...clientTool.chat, function: { ...clientTool.chat.function, name } }
    : { ...clientTool[wire], name },
];

/**
 * The follow-up to a hand-back or an approval request (a whole JSON answer of `wire`): the question, the handed-back
 * call, its answer, as `edit` says.
 */
export function followUp(
  wire: WireName,
  question: string,
  answer: Item,
  edit: TokenEdit,
  streamed: boolean,
  answering: Answering = HAND_BACK,
): Record<string, unknown> {
  const { model, text } = answering;
  const tools = toolsOf(wire, answering.tool);
  const ids = (id: string) => ({
    call: edit.where === 'answer' ? id : editedId(id, edit),
    answer: edit.where === 'call' ? id : editedId(id, edit),
  });
  const repeat = (items: unknown[]) => Array.from({ length: edit.copies }, () => items).flat();
  if (wire === 'chat') {
    const message = (answer.choices as { message: Item }[])[0].message;
    const [call] = message.tool_calls as Item[];
    const { call: callId, answer: answerId } = ids(call.id as string);
    const exchange = [
      { ...message, tool_calls: [{ ...call, id: callId }] },
      ...(edit.answered ? [{ role: 'tool', tool_call_id: answerId, content: text }] : []),
    ];
    const strays = edit.stray ? [{ role: 'tool', tool_call_id: 'fzs_never', content: 'stray' }] : [];
    return {
      model,
      stream: streamed,
      tools,
      messages: [{ role: 'user', content: question }, ...repeat(exchange), ...strays],
    };
  }
  if (wire === 'responses') {
    const output = answer.output as Item[];
    const call = output.find((item) => item.type === 'function_call' || item.type === 'mcp_approval_request')!;
    const asks = call.type === 'mcp_approval_request';
    const key = asks ? 'id' : 'call_id';
    const { call: callId, answer: answerId } = ids(call[key] as string);
    const reply = asks
      ? { type: 'mcp_approval_response', approval_request_id: answerId, approve: answering.approve }
      : { type: 'function_call_output', call_id: answerId, output: text };
    const exchange = [
      ...output.map((item) => (item === call ? { ...item, [key]: callId } : item)),
      ...(edit.answered ? [reply] : []),
    ];
    const strays = edit.stray ? [{ type: 'function_call_output', call_id: 'fzs_never', output: 'stray' }] : [];
    return {
      model,
      stream: streamed,
      tools,
      input: [{ type: 'message', role: 'user', content: question }, ...repeat(exchange), ...strays],
    };
  }
  const content = answer.content as Item[];
  const use = content.find((block) => block.type === 'tool_use')!;
  const { call: callId, answer: answerId } = ids(use.id as string);
  const results = [
    ...(edit.answered ? [{ type: 'tool_result', tool_use_id: answerId, content: text }] : []),
    ...(edit.stray ? [{ type: 'tool_result', tool_use_id: 'fzs_never', content: 'stray' }] : []),
  ];
  const exchange = [
    { role: 'assistant', content: content.map((block) => (block === use ? { ...block, id: callId } : block)) },
    ...(results.length ? [{ role: 'user', content: results }] : []),
  ];
  return {
    model,
    stream: streamed,
    max_tokens: 256,
    tools,
    messages: [{ role: 'user', content: question }, ...repeat(exchange)],
  };
}
