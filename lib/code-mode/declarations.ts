import type { LoopTool } from '../loop/loop-tool';
import type { CodeModeConfig } from './options';

/** The one tool a binding in code mode offers. */
export const RUN_CODE = 'run_code';

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
/** Deeper than this, a schema reads as `unknown`: the declaration stays short whatever the schema nests. */
const MAX_DEPTH = 4;

function objectType(schema: Schema, depth: number): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(properties).map(
    ([name, field]) => `${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(field, depth + 1)}`,
  );
  return fields.length === 0 ? 'Record<string, unknown>' : `{ ${fields.join('; ')} }`;
}

/** A JSON Schema as a TypeScript type, as far as a model needs it to write the call. */
export function typeOf(schema: unknown, depth = 0): string {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return 'unknown';
  const node = schema as Schema;
  if (Array.isArray(node.enum)) return node.enum.map((value) => JSON.stringify(value)).join(' | ') || 'never';
  if ('const' in node) return JSON.stringify(node.const);
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return union.map((item) => typeOf(item, depth + 1)).join(' | ');
  if (Array.isArray(node.type)) return node.type.map((type) => typeOf({ ...node, type }, depth)).join(' | ');
  switch (node.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(node.items, depth + 1);
      return /^[\w.]+(\[\])*$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(node, depth);
    default:
      return node.properties ? objectType(node, depth) : 'unknown';
  }
}

/** A description's first sentence: what the model reads of each tool. */
export function firstSentence(text: string | undefined): string {
  const trimmed = (text ?? '').trim();
  const end = /[.!?](\s|$)|\n/.exec(trimmed);
  return (end ? trimmed.slice(0, end.index + 1) : trimmed).trim();
}

/** One tool as a typed async function of `tools`, its description's first sentence above it. */
export function declaration(tool: LoopTool): string {
  const { name, description, parameters } = tool;
  const properties = Object.keys(((parameters ?? {}) as Schema).properties ?? {});
  const pattern =
    properties.length > 0 && properties.every((p) => IDENTIFIER.test(p)) ? `{ ${properties.join(', ')} }` : 'args';
  const call = IDENTIFIER.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
  const sentence = firstSentence(description);
  return `${sentence ? `/** ${sentence.replace(/\*\//g, '* /')} */\n` : ''}${call}(${pattern}: ${typeOf(parameters ?? { type: 'object' })}): Promise<unknown>;`;
}

/** What `run_code` says of the tools it does not declare: none, or those a tool search finds. */
const UNDECLARED = {
  none: '(this binding offers no tools)',
  searched:
    'Find the tools with tool_search: its answer declares the tools found, which your programs can call from then on.',
};

/**
 * `run_code`, declaring the tools its programs can call; `searched`: the binding's other tools are held back for
 * `tool_search`, whose answers declare them, so this definition never changes as they are found.
 */
export function runCodeTool(tools: readonly LoopTool[], limits: CodeModeConfig, searched = false): LoopTool {
  const undeclared = UNDECLARED[searched ? 'searched' : 'none'];
  const declared = [...tools.map(declaration), ...(searched || tools.length === 0 ? [undeclared] : [])].join('\n');
  return {
    name: RUN_CODE,
    description:
      `Runs a JavaScript program in a sandbox (no network, files or process) and returns { ` +
      `"return": <its return value as JSON>, "log": [<its console.log lines>] }. The code is the body of an ` +
      `async function: use await and return. Call the tools below as async functions; each resolves to the ` +
      `tool's result (its structured content, else its text, parsed when it is JSON), and a call that fails ` +
      `throws an Error whose message says why (catch it to go on). Write one program that makes all the ` +
      `calls the task needs and returns only what you need to read. Limits: ${limits.timeoutSec} s, ` +
      `${limits.memoryMb} MiB, ${limits.maxCalls} tool calls.\n\n${declared}`,
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The body of an async JavaScript function' } },
      required: ['code'],
      additionalProperties: false,
    },
  };
}
