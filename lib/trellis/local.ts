import Joi from 'joi';
import { AgentLoopError } from '../errors';
import { option, required, schemaOf, validator, type OptionsIn } from '../options/declaration';
import type { CallToolResult, InputAnswers, Tool, Trellis } from '../types';
import { abortable } from '../shared/signals';
import { localTaskOption, runAsTask } from './local-task';

const localToolOptions = {
  name: required<string>({ schema: Joi.string(), hint: "it must be the tool's name, e.g. name: 'clock_now'" }),
  description: option<string>({ schema: Joi.string() }),
  inputSchema: option<Tool['inputSchema']>({
    schema: Joi.object(),
    hint:
      "it must be the arguments' JSON Schema, e.g. inputSchema: " +
      "{ type: 'object', properties: { q: { type: 'string' } } }",
  }),
  _meta: option<Record<string, unknown>>({ schema: Joi.object() }),
  handler: required<
    (
      args: Record<string, unknown>,
      /** `input`: the person's answers, when the tool's last result asked for them (`inputRequired`) */
      options: { signal: AbortSignal; input?: InputAnswers },
    ) => string | CallToolResult | Promise<string | CallToolResult>
  >({
    schema: Joi.function(),
    hint:
      'it must be a function of the arguments that returns the result text (or an MCP result), ' +
      'e.g. handler: () => new Date().toISOString()',
  }),
  /** the tool runs as a task (MCP's tasks extension), scripted: its steps' status messages, a failure, an input */
  task: localTaskOption,
};

export type LocalTool = OptionsIn<typeof localToolOptions>;

const toolsOption = {
  tools: required<LocalTool[]>({
    schema: Joi.array().items(schemaOf(localToolOptions)),
    hint: "it must be a list of tools, e.g. [{ name: 'clock_now', handler: () => new Date().toISOString() }]",
    list: true,
    inner: localToolOptions,
  }),
};

const validTools = validator('localTrellis', schemaOf(toolsOption), toolsOption);

function definition({ name, description, inputSchema, _meta }: LocalTool): Tool {
  return {
    name,
    ...(description === undefined ? {} : { description }),
    inputSchema: inputSchema ?? { type: 'object' },
    ...(_meta ? { _meta } : {}),
  };
}

/** An in-process Trellis: plain functions as tools, for tests, the benchmark, and apps without an MCP server. */
export function localTrellis(tools: LocalTool[]): Trellis {
  validTools({ tools });
  const byName = new Map<string, LocalTool>();
  for (const tool of tools) {
    if (byName.has(tool.name))
      throw new AgentLoopError(
        'ERR_AGENT_LOOP_INVALID_OPTION',
        `localTrellis: tool '${tool.name}' is defined twice; tool names must be unique`,
      );
    byName.set(tool.name, tool);
  }
  const definitions = tools.map(definition);

  async function run(
    tool: LocalTool,
    args: Record<string, unknown>,
    signal: AbortSignal,
    input: InputAnswers | undefined,
  ): Promise<CallToolResult> {
    const result = await tool.handler(args, { signal, ...(input ? { input } : {}) });
    return typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
  }

  return {
    async listTools() {
      return definitions;
    },
    async callTool(name, args, options) {
      const { signal, input } = options;
      const tool = byName.get(name);
      if (!tool) throw new Error(`unknown tool '${name}'`);
      signal.throwIfAborted();
      const work = () => run(tool, args, signal, input);
      return abortable(tool.task ? runAsTask(tool.task, work, options) : work(), signal);
    },
  };
}
