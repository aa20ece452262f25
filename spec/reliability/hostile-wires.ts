import fc from 'fast-check';

/**
 * Hostile inputs for the three front doors, as fast-check arbitraries: client bodies (valid requests with fields
 * of every wrong type, prototype keys, deep or huge values, histories with forged ids) and upstream replies (JSON
 * and SSE of each wire with calls of every wrong shape, events dropped, repeated, swapped, broken).
 */

export type WireName = 'chat' | 'responses' | 'messages';

/** The binding's tools, named so that no drawn value takes them by chance. */
export const TOOLS = { lookup: 'fz_lookup', flaky: 'fz_flaky' };
export const MODEL = 'loop-fuzz';

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
export const wireText = (value: unknown): string => JSON.stringify(value).replace(/"@@raw(\d+)@@"/g, (_, i: string) => RAW[Number(i)]);

const hostileValue = fc.oneof(
  { weight: 4, arbitrary: fc.anything({ maxDepth: 2 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, [], {}, '', 0, -1, 1e308, true, '__proto__', [null], [[]], 'constructor') },
  { weight: 1, arbitrary: rawValue },
);
/** the valid value most of the time, else a hostile one, else none at all */
const field = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: hostileValue });

/** Ids a history or a reply gives its calls: repeated, forged continuations and approvals, huge, of other types. */
const callId = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>('dup_1', 'dup_1', 'call_9.al1.AAAAforged', 'toolu_9.ap1.BBBBforged', '__proto__', 'constructor', '') },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constant('i'.repeat(70_000)) },
  { weight: 1, arbitrary: hostileValue },
);
const toolName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom<unknown>(TOOLS.lookup, TOOLS.flaky, 'client_fn', 'nope', '') }, { weight: 1, arbitrary: hostileValue });
const argumentsText = fc.oneof({ weight: 3, arbitrary: fc.constantFrom<unknown>('{}', '{"q":"a"}', '{"a":', '[]', 'null', '"s"') }, { weight: 1, arbitrary: hostileValue });
const input = fc.oneof({ weight: 3, arbitrary: fc.constantFrom<unknown>({}, { q: 'a' }) }, { weight: 1, arbitrary: hostileValue });
const list = <T>(item: fc.Arbitrary<T>) => fc.array(item, { maxLength: 4 });
const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields, { requiredKeys: [] });

const USER = { chat: { role: 'user', content: 'hi' }, responses: { type: 'message', role: 'user', content: 'hi' }, messages: { role: 'user', content: 'hi' } };

const historyItem: Record<WireName, fc.Arbitrary<unknown>> = {
  chat: fc.oneof(
    fc.record({ role: fc.constant('assistant'), content: fc.constant(null), tool_calls: field(list(partial({ id: callId, type: fc.constant('function'), function: field(partial({ name: toolName, arguments: argumentsText })) }))) }),
    fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: field(fc.string()) }),
    fc.record({ role: field(fc.constantFrom('user', 'system', 'developer')), content: hostileValue }),
    hostileValue,
  ),
  responses: fc.oneof(
    partial({ type: fc.constant('function_call'), call_id: callId, name: toolName, arguments: argumentsText, id: callId }),
    partial({ type: fc.constant('function_call_output'), call_id: callId, output: field(fc.string()) }),
    partial({ type: fc.constant('mcp_approval_response'), approval_request_id: callId, approve: field(fc.boolean()) }),
    fc.record({ type: field(fc.constantFrom('message', 'reasoning', 'custom_tool_call')), role: field(fc.constantFrom('user', 'assistant')), content: hostileValue }),
    hostileValue,
  ),
  messages: fc.oneof(
    fc.record({ role: fc.constant('assistant'), content: field(list(partial({ type: fc.constantFrom('tool_use', 'text', 'thinking'), id: callId, name: toolName, input, text: field(fc.string()) }))) }),
    fc.record({ role: fc.constant('user'), content: field(list(partial({ type: fc.constant('tool_result'), tool_use_id: callId, content: field(fc.string()), is_error: hostileValue }))) }),
    fc.record({ role: field(fc.constantFrom('user', 'assistant')), content: hostileValue }),
    hostileValue,
  ),
};

/** the conversation: often just the user's question; else a drawn history, with or without the question after it */
const conversation = (wire: WireName) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant([USER[wire]]) },
    { weight: 4, arbitrary: fc.tuple(list(historyItem[wire]), fc.boolean()).map(([items, ask]) => (ask ? [...items, USER[wire]] : items)) },
    { weight: 1, arbitrary: hostileValue },
  );

const clientTool = { chat: { type: 'function', function: { name: 'client_fn', parameters: { type: 'object' } } }, responses: { type: 'function', name: 'client_fn', parameters: { type: 'object' } }, messages: { name: 'client_fn', input_schema: { type: 'object' } } };
const tools = (wire: WireName) => field(fc.oneof(fc.constant([clientTool[wire]]), list(fc.oneof(fc.constant(clientTool[wire]), partial({ type: hostileValue, name: toolName, function: field(partial({ name: toolName })) })))));
const toolChoice = field(fc.constantFrom<unknown>('auto', 'required', 'none', { type: 'function', name: TOOLS.lookup }, { type: 'tool', name: 'client_fn' }, { type: 'any' }));
const stream = fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: hostileValue });
const model = fc.oneof({ weight: 6, arbitrary: fc.constant(MODEL) }, { weight: 1, arbitrary: hostileValue });
const tokens = field(fc.integer({ min: 1, max: 4096 }));

/** A client's body for `wire`: a valid request with any of its fields dropped or of a wrong type. */
export function clientBody(wire: WireName): fc.Arbitrary<Record<string, unknown>> {
  const shared = { model, stream, tools: tools(wire), tool_choice: toolChoice };
  if (wire === 'chat') return partial({ ...shared, messages: conversation(wire), max_tokens: tokens, n: field(fc.constant(1)), stream_options: hostileValue });
  if (wire === 'responses') {
    return partial({ ...shared, input: fc.oneof(fc.constant('hi'), conversation(wire)), max_output_tokens: tokens, previous_response_id: hostileValue, instructions: field(fc.string()), background: hostileValue });
  }
  return partial({ ...shared, messages: conversation(wire), max_tokens: tokens, system: field(fc.string()), thinking: hostileValue });
}

/** A well-formed request for `wire` whose question carries `key` (the upstream's script finds it there). */
export function askingBody(wire: WireName, key: string, streamed: boolean): Record<string, unknown> {
  if (wire === 'responses') return { model: MODEL, stream: streamed, input: key };
  return { model: MODEL, stream: streamed, max_tokens: 256, messages: [{ role: 'user', content: key }] };
}
