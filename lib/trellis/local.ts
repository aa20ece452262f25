import { AgentLoopError } from '../errors';
import type { CallToolResult, Tool, Trellis } from '../types';
import { abortable } from '../signals';

export interface LocalTool {
  name: string;
  description?: string;
  inputSchema?: Tool['inputSchema'];
  _meta?: Record<string, unknown>;
  handler(args: Record<string, unknown>, options: { signal: AbortSignal }): string | CallToolResult | Promise<string | CallToolResult>;
}

function definition({ name, description, inputSchema, _meta }: LocalTool): Tool {
  return { name, ...(description === undefined ? {} : { description }), inputSchema: inputSchema ?? { type: 'object' }, ...(_meta ? { _meta } : {}) };
}

/** An in-process Trellis: plain functions as tools, for tests, the benchmark, and apps without an MCP server. */
export function localTrellis(tools: LocalTool[]): Trellis {
  const byName = new Map<string, LocalTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new AgentLoopError('ERR_AGENT_LOOP_INVALID_OPTION', `localTrellis: tool '${tool.name}' is defined twice; tool names must be unique`);
    byName.set(tool.name, tool);
  }
  const definitions = tools.map(definition);

  async function run(tool: LocalTool, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const result = await tool.handler(args, { signal });
    return typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
  }

  return {
    async listTools() {
      return definitions;
    },
    async callTool(name, args, { signal }) {
      const tool = byName.get(name);
      if (!tool) throw new Error(`unknown tool '${name}'`);
      signal.throwIfAborted();
      return abortable(run(tool, args, signal), signal);
    },
  };
}
