import type { Logger, Tool } from '../types';
import { canonicalJson } from '../shared/canonical-json';
import { effectiveAnnotations } from './annotations';

/**
 * What the loop acts on: the model reads the description and schema, the judge the annotations, the gate the parent.
 */
function contractOf({ description, inputSchema, annotations, _meta }: Tool) {
  return { description, inputSchema, annotations: effectiveAnnotations(annotations), parent: _meta?.parent };
}

function contract(tool: Tool): string {
  return canonicalJson(contractOf(tool));
}

export interface ToolDefinitionsOptions {
  /** how long a changed definition must stay the same before it replaces the first one seen */
  windowMs: number;
  logger: Logger;
  trellis: string;
}

/**
 * Guards against a "rug pull": a tool whose description, schema, annotations or `_meta.parent` changes after the
 * model, the judge or the gate read it. The first definition seen keeps being served, with a warning, until the
 * new one has been seen for a whole window.
 */
export function toolDefinitions({ windowMs, logger, trellis }: ToolDefinitionsOptions): (listed: Tool[]) => Tool[] {
  const served = new Map<string, Tool>();
  const changes = new Map<string, { definition: Tool; since: number }>();
  let last: Tool[] = [];

  function settle(tool: Tool, now: number): Tool {
    const first = served.get(tool.name);
    if (first && contract(first) !== contract(tool)) return settleChange(first, tool, now);
    changes.delete(tool.name);
    if (first && canonicalJson(first) === canonicalJson(tool)) return first;
    served.set(tool.name, tool);
    return tool;
  }

  function settleChange(first: Tool, tool: Tool, now: number): Tool {
    const change = changes.get(tool.name);
    if (!change || contract(change.definition) !== contract(tool)) {
      changes.set(tool.name, { definition: tool, since: now });
      logger.warn('trellis tool definition changed', {
        tool: tool.name,
        trellis,
        served: contractOf(first),
        changed: contractOf(tool),
        adoptAfterSec: windowMs / 1000,
      });
      return first;
    }
    if (now - change.since < windowMs) return first;
    changes.delete(tool.name);
    served.set(tool.name, tool);
    logger.info('trellis tool definition adopted', { tool: tool.name, trellis });
    return tool;
  }

  return function settleListing(listed: Tool[]): Tool[] {
    const now = Date.now();
    const tools = listed.map((tool) => settle(tool, now));
    const unchanged = tools.length === last.length && tools.every((tool, index) => tool === last[index]);
    if (!unchanged) last = tools;
    return last;
  };
}
