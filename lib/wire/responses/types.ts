import { isObject, type Fields } from '../../shared/fields';
import type { WireCall } from '../../loop/wire';

/** One Responses item, input or output, every field kept. */
export type ResponseItem = Fields;

/**
 * Output items only the client can act on (its computer, shell, patches, custom tools, hosted MCP approvals): the
 * loop never runs them, so a reply with one ends the loop and hands it back, like a call to the client's own function.
 * Each is named for the loop by its type, marked with `#` (no tool name has one).
 */
const CLIENT_ACTIONS = [
  'custom_tool_call',
  'computer_call',
  'local_shell_call',
  'shell_call',
  'apply_patch_call',
  'mcp_approval_request',
];
export const CLIENT_ACTION_NAMES: readonly string[] = CLIENT_ACTIONS.map((type) => `#${type}`);

const isCallItem = (item: ResponseItem) =>
  item.type === 'function_call' || CLIENT_ACTIONS.includes(item.type as string);

/** A `function_call` (or client action) item as the loop runs it: by `call_id`, with its place in the output. */
function callOf(item: ResponseItem, index: number): WireCall | undefined {
  if (!isCallItem(item)) return undefined;
  const id = typeof item.call_id === 'string' ? item.call_id : '';
  if (item.type !== 'function_call')
    return { id, name: `#${String(item.type)}`, arguments: item.input ?? item.action, index };
  return { id, name: typeof item.name === 'string' ? item.name : '', arguments: item.arguments, index };
}

export function callsOf(output: readonly ResponseItem[]): WireCall[] {
  return output.flatMap((item, index) => callOf(item, index) ?? []);
}

/** The text of a message item's `output_text` parts (or an input message's text). */
export function messageText(item: ResponseItem): string {
  if (typeof item.content === 'string') return item.content;
  if (!Array.isArray(item.content)) return '';
  return item.content
    .map((part: unknown) =>
      isObject(part) && (part.type === 'output_text' || part.type === 'input_text') && typeof part.text === 'string'
        ? part.text
        : '',
    )
    .join('');
}

export function outputText(output: readonly ResponseItem[]): string {
  return output
    .filter((item) => item.type === 'message')
    .map(messageText)
    .join('');
}

/**
 * The model's output as the conversation carries it on: every item whole, but only the calls that run (`kept`, their
 * ids the loop's).
 */
export function keptOutput(output: readonly ResponseItem[], kept: readonly WireCall[]): ResponseItem[] {
  const ids = new Map(kept.map((call) => [call.index, call.id]));
  return output.flatMap((item, index) => {
    if (!isCallItem(item)) return [item];
    const id = ids.get(index);
    return id === undefined ? [] : [id === item.call_id ? item : { ...item, call_id: id }];
  });
}

export { isCallItem, isObject };
