import { FROM_TRELLIS, Hierarchy } from './hierarchy';
import type { LoopTool } from '../loop/loop-tool';
import { redacted } from '../shared/redact';
import type { ToolOutcome } from '../loop/tool-outcome';
import type { EffectiveAnnotations, Logger, Tool, Trellis } from '../types';
import { effectiveAnnotations } from './annotations';

const OPEN_SCHEMA = { type: 'object', additionalProperties: true };

export type HierarchySource = Hierarchy | typeof FROM_TRELLIS;

/** MCP's definition as the loop offers it, its schema whole (`$schema` too: the wires that refuse it drop it). */
function loopTool({ name, description, inputSchema: parameters }: Tool): LoopTool {
  return { name, ...(description === undefined ? {} : { description }), parameters };
}

/**
 * The binding's tools as the model sees them, and the tree that gates them, built from Trellis' listing: a tool
 * Trellis does not list is left out (with one warning), and so is any tool it would have unlocked. Rebuilt only
 * when Trellis hands back a new list; when Trellis cannot list right now, the last known tools (else the
 * configured names with an open schema; none for 'from-trellis') are offered, so the loop still runs and
 * each call fails readably.
 */
export class ToolCatalog {
  private listed?: Tool[];
  private hints = new Map<string, EffectiveAnnotations>();
  /** why the last listing failed; cleared by the next one that works */
  private failure?: string;
  private offered: { hierarchy: Hierarchy; tools: LoopTool[] };
  private warned = '[]';
  private readonly users = new WeakMap<Trellis, ToolCatalog>();

  constructor(
    private readonly trellis: Trellis,
    private readonly source: HierarchySource,
    private readonly binding: string,
    private readonly logger: Logger,
  ) {
    const hierarchy = source === FROM_TRELLIS ? new Hierarchy([]) : source;
    this.offered = {
      hierarchy,
      tools: hierarchy.tools.map((name) => ({ name, parameters: OPEN_SCHEMA })),
    };
  }

  /**
   * The same binding's catalog on another Trellis (a signed-in user's): its own listing, kept while that Trellis lives.
   */
  forTrellis(trellis: Trellis): ToolCatalog {
    let catalog = this.users.get(trellis);
    if (!catalog) this.users.set(trellis, (catalog = new ToolCatalog(trellis, this.source, this.binding, this.logger)));
    return catalog;
  }

  /** The tree in force: the unknown-tool check and the gate use it. */
  get hierarchy(): Hierarchy {
    return this.offered.hierarchy;
  }

  /** The tool's MCP annotations as the judge sees them (MCP's defaults for a tool Trellis has not described). */
  annotations(tool: string): EffectiveAnnotations {
    return this.hints.get(tool) ?? effectiveAnnotations();
  }

  async tools(signal?: AbortSignal): Promise<LoopTool[]> {
    try {
      const listed = await this.trellis.listTools(signal);
      if (listed !== this.listed) this.rebuild(listed);
      this.failure = undefined;
    } catch (error) {
      if (!signal?.aborted) {
        this.failure = redacted((error as Error).message);
        this.logger.warn(`agent-loop trellis listing failed; ${this.fallback()}`, {
          binding: this.binding,
          reason: this.failure,
        });
      }
    }
    return this.offered.tools;
  }

  /** undefined once Trellis listed the tools at least once; until then, why it has not */
  get unlisted(): string | undefined {
    return this.listed ? undefined : (this.failure ?? 'not listed yet');
  }

  /** why the last listing failed (the last known tools are offered meanwhile); undefined when it worked */
  get listingFailure(): string | undefined {
    return this.failure;
  }

  /** The outcome of a call to a tool outside the tree in force: the valid tools, else why there are none. */
  unknownTool(tool: string): ToolOutcome {
    const valid = this.offered.hierarchy.tools;
    const unlisted = this.listed === undefined ? this.failure : undefined;
    return { kind: 'invalid', tool, why: 'unknown_tool', valid, ...(unlisted === undefined ? {} : { unlisted }) };
  }

  /** What the model is offered while Trellis cannot list, in words that match what it is actually offered. */
  private fallback(): string {
    if (this.listed !== undefined) return 'offering the last known tools';
    if (this.source !== FROM_TRELLIS) return 'offering the configured tool names with an open schema';
    return "it has never listed its tools, so this 'from-trellis' binding offers none until it does";
  }

  private rebuild(listed: Tool[]): void {
    const byName = new Map(listed.map((tool) => [tool.name, tool]));
    const full = this.source === FROM_TRELLIS ? Hierarchy.fromTools(listed) : this.source;
    const hierarchy = full.within(new Set(byName.keys()));
    this.warnOfMissing(full, hierarchy, byName);
    this.listed = listed;
    this.hints = new Map(listed.map((tool) => [tool.name, effectiveAnnotations(tool.annotations)]));
    this.offered = { hierarchy, tools: hierarchy.tools.map((name) => loopTool(byName.get(name)!)) };
  }

  private warnOfMissing(full: Hierarchy, kept: Hierarchy, listed: Map<string, Tool>): void {
    const missing = full.names.filter((name) => !listed.has(name));
    const key = JSON.stringify(missing);
    if (key === this.warned) return;
    this.warned = key;
    if (missing.length === 0) return;
    this.logger.warn('agent-loop hierarchy names tools Trellis does not list; they are left out', {
      binding: this.binding,
      missing,
      leftOut: full.tools.filter((tool) => !kept.has(tool)),
    });
  }
}
