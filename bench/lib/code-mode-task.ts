import type { ScriptedTurn } from '../../lib/testing';
import { firstSentence } from '../../lib/code-mode/declarations';
import type { Tool } from '../../lib/types';

/** How the scripted model goes about a task: the tools offered whole, found by search, called from one program, or both. */
export type Strategy = 'all tools' | 'tool search' | 'code mode' | 'code mode + tool search';
export const STRATEGIES: Strategy[] = ['all tools', 'tool search', 'code mode', 'code mode + tool search'];

/** One call of a task: a tool of the catalog and its arguments. */
export interface TaskCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The tools a task uses, from five servers of the catalog: the 3-call task the first three, the others all five. */
export const TASK_TOOLS = ['get_issue', 'slack_get_channel_history', 'maps_geocode', 'search_nodes', 'list_commits'];

type Schema = { type?: string; enum?: unknown[]; properties?: Record<string, Schema>; required?: string[] };

/** A value of the field's type, numbered by the call: what a model fills in from the user's question. */
function valueOf(schema: Schema | undefined, field: string, n: number): unknown {
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  switch (schema?.type) {
    case 'number':
    case 'integer':
      return n;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return `${field.replace(/_/g, '-')}-${n}`;
  }
}

/** The task's `count` calls: the tools in turn, each call's required fields filled in, no two calls alike. */
export function taskCalls(catalog: Tool[], count: number): TaskCall[] {
  const used = TASK_TOOLS.slice(0, count <= 3 ? 3 : TASK_TOOLS.length).map((name) => {
    const tool = catalog.find((candidate) => candidate.name === name);
    if (!tool) throw new Error(`the catalog has no tool '${name}'`);
    return tool;
  });
  return Array.from({ length: count }, (_, i) => {
    const tool = used[i % used.length];
    const schema = tool.inputSchema as Schema;
    const required = schema.required ?? [];
    const args = Object.fromEntries(
      required.map((field) => [field, valueOf(schema.properties?.[field], field, i + 1)]),
    );
    return { name: tool.name, arguments: args };
  });
}

/** A `tool_search` call for each tool the task uses, its query the tool's first sentence, as a model would ask. */
function searches(catalog: Tool[], calls: TaskCall[]): ScriptedTurn {
  const names = [...new Set(calls.map((call) => call.name))];
  return {
    toolCalls: names.map((name) => ({
      name: 'tool_search',
      arguments: { query: firstSentence(catalog.find((tool) => tool.name === name)!.description) },
    })),
  };
}

/** The program a model writes for the task: each tool's calls in a loop, keeping three fields of each result. */
export function program(calls: TaskCall[]): string {
  const byTool = new Map<string, Record<string, unknown>[]>();
  for (const call of calls) byTool.set(call.name, [...(byTool.get(call.name) ?? []), call.arguments]);
  const loops = [...byTool].map(
    ([name, args]) =>
      `for (const args of ${JSON.stringify(args)}) {\n  const r = await tools.${name}(args);\n  out.push({ id: r.id, title: r.title, status: r.status });\n}`,
  );
  return ['const out = [];', ...loops, 'return out;'].join('\n');
}

export const ANSWER = 'Done: every item is summed up above.';

/**
 * The scripted model's turns for a task: direct calls go in parallel batches of `batch` a turn (as a model calls
 * what it can at once); code mode writes one program; tool search first looks up every tool the task uses at once.
 */
export function turnsFor(strategy: Strategy, catalog: Tool[], calls: TaskCall[], batch: number): ScriptedTurn[] {
  const answer = { content: ANSWER };
  const search = strategy.endsWith('tool search') ? [searches(catalog, calls)] : [];
  if (strategy.startsWith('code mode'))
    return [...search, { toolCalls: [{ name: 'run_code', arguments: { code: program(calls) } }] }, answer];
  const batches: ScriptedTurn[] = [];
  for (let i = 0; i < calls.length; i += batch) batches.push({ toolCalls: calls.slice(i, i + batch) });
  return [...search, ...batches, answer];
}

const WORDS =
  'the release was reviewed by the team and the change keeps the old behaviour for existing users while the new path is tested on staging before it ships'.split(
    ' ',
  );

/** A plausible result of a read tool, about 1 KiB of JSON: a record with a title, a status, a summary and five items. */
export function resultOf(call: TaskCall, n: number): string {
  const text = (length: number, from: number) =>
    Array.from({ length }, (_, i) => WORDS[(from + i * 7) % WORDS.length]).join(' ');
  return JSON.stringify({
    id: `${call.name}-${n}`,
    title: text(8, n),
    status: n % 3 === 0 ? 'closed' : 'open',
    updated_at: `2026-11-${String((n % 28) + 1).padStart(2, '0')}T10:00:00Z`,
    url: `https://example.com/${call.name}/${n}`,
    arguments: call.arguments,
    summary: text(40, n + 3),
    items: Array.from({ length: 5 }, (_, i) => ({ id: n * 10 + i, name: text(3, n + i), value: text(6, i) })),
  });
}
