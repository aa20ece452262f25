import { readsAsFailure, type ToolOutcome } from '../loop/tool-outcome';
import type { HierarchyNode, Tool } from '../types';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The keys a tool node `{ tool, children }` may have. */
export const NODE_KEYS = ['tool', 'children'];

/** The path to the first key of a tool node that is not one of `NODE_KEYS` (`childern`), from `nodes` down. */
export function unknownNodeKey(nodes: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (Array.isArray(nodes)) {
    for (const [i, node] of nodes.entries()) {
      const found = unknownNodeKey(node, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof nodes !== 'object' || nodes === null) return undefined;
  const unknown = Object.keys(nodes).find((key) => !NODE_KEYS.includes(key));
  if (unknown !== undefined) return [...path, unknown];
  const { children } = nodes as { children?: unknown };
  return Array.isArray(children) ? unknownNodeKey(children, [...path, 'children']) : undefined;
}

/** A binding's `hierarchy` value that takes the tree from the tools' own `_meta.parent`. */
export const FROM_TRELLIS = 'from-trellis';

/** The binding's tool tree: a child runs only after its parent ran successfully earlier in the conversation. */
export class Hierarchy {
  private readonly parents = new Map<string, string | undefined>();

  constructor(roots: HierarchyNode[]) {
    for (const root of roots) this.add(root, undefined);
  }

  /** The tree MCP tools describe themselves: a tool's `_meta.parent` names the tool that unlocks it. */
  static fromTools(tools: Tool[]): Hierarchy {
    const hierarchy = new Hierarchy([]);
    for (const { name, _meta } of tools) {
      const parent = _meta?.parent;
      hierarchy.parents.set(name, typeof parent === 'string' && parent !== name ? parent : undefined);
    }
    return hierarchy;
  }

  get tools(): string[] {
    return [...this.parents.keys()];
  }

  has(tool: string): boolean {
    return this.parents.has(tool);
  }

  parentOf(tool: string): string | undefined {
    return this.parents.get(tool);
  }

  /** Tool names the tree refers to, as tools or as parents. */
  get names(): string[] {
    const named = new Set<string>(this.parents.keys());
    for (const parent of this.parents.values()) if (parent !== undefined) named.add(parent);
    return [...named];
  }

  /** This tree cut down to the tools in `listed` whose every ancestor is listed too: any other could never unlock. */
  within(listed: ReadonlySet<string>): Hierarchy {
    const kept = new Hierarchy([]);
    for (const [tool, parent] of this.parents) if (this.unlockable(tool, listed)) kept.parents.set(tool, parent);
    return kept;
  }

  /** The refusal when `tool`'s parent has not run successfully yet, else undefined. */
  gate(tool: string, succeeded: ReadonlySet<string>): ToolOutcome | undefined {
    const parent = this.parents.get(tool);
    if (parent === undefined || succeeded.has(parent)) return undefined;
    return { kind: 'refused', tool, parent };
  }

  private unlockable(tool: string, listed: ReadonlySet<string>): boolean {
    const chain = new Set<string>();
    for (let at: string | undefined = tool; at !== undefined; at = this.parents.get(at)) {
      if (!listed.has(at) || chain.has(at)) return false;
      chain.add(at);
    }
    return true;
  }

  private add(node: HierarchyNode, parent: string | undefined): void {
    const tool = typeof node === 'string' ? node : node?.tool;
    if (typeof tool !== 'string' || !TOOL_NAME.test(tool)) {
      throw new Error(
        `${JSON.stringify(node)} is not a tool node; use 'tool_name' or { tool: 'tool_name', children: [...] }`,
      );
    }
    if (this.parents.has(tool)) throw new Error(`'${tool}' appears twice; each tool has one place in the tree`);
    this.parents.set(tool, parent);
    const children = typeof node === 'string' ? [] : (node.children ?? []);
    if (!Array.isArray(children)) throw new Error(`the children of '${tool}' must be an array`);
    for (const child of children) this.add(child, tool);
  }
}

/** One entry of a client's history, in no wire's shape: a call the model made, or the answer to a call. */
export type HistoryEntry = { call: unknown; tool: unknown } | { answers: unknown; text: string; failed?: boolean };

/**
 * Tools that a trusted history says ran successfully (`trustClientHistory`): each call answered, after it, by a
 * result that reads as no failure. They unlock their children.
 */
export function succeededIn(history: Iterable<HistoryEntry>): Set<string> {
  const names = new Map<unknown, unknown>();
  const succeeded = new Set<string>();
  for (const entry of history) {
    if ('call' in entry) {
      names.set(entry.call, entry.tool);
      continue;
    }
    const name = names.get(entry.answers);
    if (typeof name === 'string' && name !== '' && entry.failed !== true && !readsAsFailure(entry.text))
      succeeded.add(name);
  }
  return succeeded;
}
