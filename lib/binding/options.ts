import Joi from 'joi';
import type { Request } from 'express';
import { FROM_TRELLIS, Hierarchy, NODE_KEYS, unknownNodeKey } from '../trellis/hierarchy';
import { distance } from '../options/closest-name';
import { defaulted, option, required, schemaOf, tunable, wholeNumber, type OptionsIn } from '../options/declaration';
import { toolSearchOption, type ToolSearchOptions } from '../tool-search/options';
import { codeModeOption } from '../code-mode/options';
import type { HierarchySource } from '../trellis/catalog';
import { listTtlSec, mcpCommandOptions, mcpUrlOptions } from '../trellis/mcp-options';
import type { BindingMatch, HierarchyNode, RequireApproval } from '../types';
import type { TrellisOption, ValidTrellisOption } from '../trellis/mcp-options';

const isTrellis = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).callTool === 'function';

const ttl = listTtlSec.doc!;

export const trellisOption = option<TrellisOption, ValidTrellisOption>({
  schema: Joi.alternatives().try(
    Joi.object({ mcp: schemaOf(mcpUrlOptions).required() }),
    Joi.object({ mcp: schemaOf(mcpCommandOptions).required() }),
    Joi.any().custom((value, helpers) => (isTrellis(value) ? value : helpers.error('any.invalid'))),
  ),
  hint:
    `it must be a Trellis ({ listTools, callTool }), { mcp: { url: 'http://127.0.0.1:4000/mcp', headers?, ` +
    `forwardHeaders?: ['authorization'] or oauth?: { redirectUrl } } } or { mcp: { command: 'node', args: ` +
    `['server.js'] } }, plus listTtlSec?: ${ttl.range} (default ${ttl.fallback}) beside url or command`,
  doc: {
    range:
      'a `Trellis` (`{ listTools, callTool }`), `{ mcp: { url, headers?, forwardHeaders? } }` ' +
      'or `{ mcp: { command, args?, env? } }`',
    fallback: 'required when a binding has no own `trellis`',
    does: 'where tools run; bindings naming the same MCP server share one connection',
  },
  inner: { mcp: option({ schema: Joi.any(), inner: { ...mcpUrlOptions, ...mcpCommandOptions } }) },
});

/**
 * A bare string a few keystrokes from 'from-trellis' is a typo, not a one-tool tree: taken as a tool, it would offer
 * nothing.
 */
function nearFromTrellis(value: unknown): boolean {
  return typeof value === 'string' && value !== FROM_TRELLIS && distance(value.toLowerCase(), FROM_TRELLIS) <= 3;
}

const hierarchySchema = Joi.any().custom((value, helpers) => {
  if (value === FROM_TRELLIS) return value;
  if (nearFromTrellis(value)) {
    const error = new Error(
      `did you mean '${FROM_TRELLIS}'? That takes the tree from Trellis; ` +
        `a single tool named ${JSON.stringify(value)} is written [${JSON.stringify(value)}]`,
    );
    return helpers.error('any.custom', { error });
  }
  // A misspelt node key (`childern`) is a misspelt option: taken as is, the children would silently disappear.
  const misspelt = unknownNodeKey(value);
  if (misspelt) {
    const { state } = helpers as unknown as {
      state: { path: (string | number)[]; localize(path: (string | number)[]): Joi.State };
    };
    return helpers.error(
      'object.unknown',
      { child: misspelt.at(-1), known: NODE_KEYS },
      state.localize([...state.path, ...misspelt]),
    );
  }
  try {
    return new Hierarchy(Array.isArray(value) ? value : [value]);
  } catch (error) {
    return helpers.error('any.custom', { error: new Error(`it must be a tool tree: ${(error as Error).message}`) });
  }
});

const matchOptions = {
  model: option<string | string[]>({
    schema: Joi.alternatives(Joi.string(), Joi.array().items(Joi.string()).min(1)),
    hint: "it must be a model name glob or a list of them, e.g. model: 'gpt-*' or model: ['gpt-4o', 'llama3*']",
    qualified: true,
  }),
  header: option<Record<string, string>>({
    schema: Joi.object().pattern(/./, Joi.string()).min(1),
    hint: "it must map header names to value globs, e.g. header: { 'x-agent': 'repo*' }",
    qualified: true,
  }),
};

export const bindingOptions = {
  name: required<string>({ schema: Joi.string(), hint: "it must be a unique name for the binding, e.g. 'repo-agent'" }),
  match: required<BindingMatch | ((req: Request) => boolean)>({
    schema: Joi.alternatives().try(Joi.function(), schemaOf(matchOptions).or('model', 'header')),
    hint: "it must be { model: 'gpt-*' }, { header: { 'x-agent': 'repo' } } or (req) => boolean",
    doc: {
      range: '`{ model?: glob or glob[], header?: { name: glob } }` (all given must match) or `(req) => boolean`',
      fallback: '',
      does: '`*` matches any run of characters',
    },
    inner: matchOptions,
  }),
  hierarchy: required<HierarchyNode | HierarchyNode[] | 'from-trellis', HierarchySource>({
    schema: hierarchySchema,
    hint:
      "it must be a tool tree, e.g. hierarchy: 'clock_now', " +
      "hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }], or hierarchy: 'from-trellis'",
    doc: {
      range: "`'tool'`, `{ tool, children: [...] }` or a list of those; or `'from-trellis'`",
      fallback: '',
      does:
        'a child runs only after its parent ran successfully in this loop or in the work a verified ' +
        "continuation restored (the client's own history does not count, unless `trustClientHistory`); " +
        "`'from-trellis'` offers every tool Trellis lists, each gated by its `_meta.parent`",
    },
  }),
  maxTurns: tunable(
    wholeNumber(1, 50, 6, {
      does: 'model calls in one loop of this binding (left out: 6, whatever `defaultMaxTurns` says)',
    }),
  ),
  toolTimeoutSec: tunable(wholeNumber(1, 300, 30, { does: 'per tool call' })),
  /** more time for the tools named, in seconds (long-running tools, MCP tasks); at most `totalBudgetSec` */
  toolTimeouts: option<Record<string, number>>({
    schema: Joi.object().pattern(/./, Joi.number().integer().min(1).max(3600)),
    hint:
      'it must map tool names to whole seconds from 1 to 3600, ' +
      'at most totalBudgetSec, e.g. toolTimeouts: { build_project: 1800 }',
    doc: {
      range: '`{ toolName: seconds }`, each 1 to 3600 and at most `totalBudgetSec`',
      fallback: '',
      does:
        "the named tools' own `toolTimeoutSec` (an MCP task's whole run, " +
        'polling included); a value above `totalBudgetSec` is refused at start-up',
    },
  }),
  /** a tool's progress notification starts its timeout afresh, up to the total budget (default false) */
  resetTimeoutOnProgress: defaulted<boolean>({
    schema: Joi.boolean().default(false),
    hint:
      'it must be true (a progress notification starts the tool timeout afresh, ' +
      'up to totalBudgetSec) or false (default), e.g. resetTimeoutOnProgress: true',
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does:
        "a tool's MCP progress notification starts its `toolTimeoutSec` afresh, so a tool that keeps " +
        'reporting may run up to `totalBudgetSec`; the timeout text stays `timed out after <toolTimeoutSec>s`',
    },
  }),
  trellis: option<TrellisOption, ValidTrellisOption>({ schema: trellisOption.schema }),
  toolSearch: option<ToolSearchOptions | false>({ schema: toolSearchOption.schema }),
  codeMode: codeModeOption,
  /** which calls a person approves before they run, in OpenAI's words (default 'never') */
  requireApproval: defaulted<RequireApproval>({
    schema: Joi.alternatives(
      Joi.string().valid('always', 'never'),
      Joi.object({ never: Joi.object({ toolNames: Joi.array().items(Joi.string()).required() }).required() }),
    ).default('never'),
    hint:
      "it must be 'always', 'never' (default) or { never: { toolNames: [...] } } (every tool but those named), " +
      "e.g. requireApproval: { never: { toolNames: ['notes_read'] } }",
    doc: {
      range: "`'always'`, `'never'` or `{ never: { toolNames: [...] } }`",
      fallback: "`'never'`",
      does:
        'which calls a person approves before they run, ' +
        "in OpenAI's words ([approvals](approvals.md#a-person-approves-a-tool-call))",
    },
    inner: {
      never: option({
        schema: Joi.any(),
        inner: {
          toolNames: option({
            schema: Joi.any(),
            hint: "it must be a list of tool names, e.g. toolNames: ['notes_open', 'notes_read']",
          }),
        },
      }),
    },
  }),
};

/** A binding, as the `bindings` option lists it: its keys are declared (and documented) above. */
export type Binding = OptionsIn<typeof bindingOptions>;
