import Joi from 'joi';
import { FROM_TRELLIS, Hierarchy, NODE_KEYS, unknownNodeKey } from './hierarchy';
import { judgeOption } from './judge/options';
import { APPROVAL_TOOL, APPROVAL_TTL_SEC } from './loop/approval';
import { CONTINUATION_TTL_SEC } from './loop/continuation';
import { MAX_REPLY_BYTES } from './loop/held-bytes';
import { loggerOption } from './logger';
import { distance, validated } from './option-error';
import {
  defaulted,
  hintsOf,
  limit,
  option,
  required,
  schemaOf,
  schemasOf,
  wholeNumber,
  type OptionsIn,
  type OptionsOut,
} from './option';
import { keyBudgetOption, storeOption } from './store/options';
import { metricsOption, telemetryOption } from './telemetry/options';
import { toolSearchOption, type ToolSearchOptions } from './tool-search/options';
import type { HierarchySource } from './trellis/catalog';
import { listTtlSec, mcpCommandOptions, mcpUrlOptions } from './trellis/mcp-options';
import { webSearchOption } from './trellis/web-search';
import type { BindingMatch, HierarchyNode, Logger, RequireApproval, SelfCallTransport, TrellisOption } from './types';
import type { Request } from 'express';

const isTrellis = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).callTool === 'function';

const ttl = listTtlSec.doc!;

export const trellisOption = option<TrellisOption>({
  schema: Joi.alternatives().try(
    Joi.object({ mcp: schemaOf(mcpUrlOptions).required() }),
    Joi.object({ mcp: schemaOf(mcpCommandOptions).required() }),
    Joi.any().custom((value, helpers) => (isTrellis(value) ? value : helpers.error('any.invalid'))),
  ),
  hint: `it must be a Trellis ({ listTools, callTool }), { mcp: { url: 'http://127.0.0.1:4000/mcp', headers?, forwardHeaders?: ['authorization'] or oauth?: { redirectUrl } } } or { mcp: { command: 'node', args: ['server.js'] } }, plus listTtlSec?: ${ttl.range} (default ${ttl.fallback}) beside url or command`,
  doc: {
    range:
      'a `Trellis` (`{ listTools, callTool }`), `{ mcp: { url, headers?, forwardHeaders? } }` or `{ mcp: { command, args?, env? } }`',
    fallback: 'required when a binding has no own `trellis`',
    does: 'where tools run; bindings naming the same MCP server share one connection',
  },
  inner: { mcp: option({ schema: Joi.any(), inner: { ...mcpUrlOptions, ...mcpCommandOptions } }) },
});

/** A bare string a few keystrokes from 'from-trellis' is a typo, not a one-tool tree: taken as a tool, it would offer nothing. */
function nearFromTrellis(value: unknown): boolean {
  return typeof value === 'string' && value !== FROM_TRELLIS && distance(value.toLowerCase(), FROM_TRELLIS) <= 3;
}

const hierarchySchema = Joi.any().custom((value, helpers) => {
  if (value === FROM_TRELLIS) return value;
  if (nearFromTrellis(value)) {
    const error = new Error(
      `did you mean '${FROM_TRELLIS}'? That takes the tree from Trellis; a single tool named ${JSON.stringify(value)} is written [${JSON.stringify(value)}]`,
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
    hint: "it must be a tool tree, e.g. hierarchy: 'clock_now', hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }], or hierarchy: 'from-trellis'",
    doc: {
      range: "`'tool'`, `{ tool, children: [...] }` or a list of those; or `'from-trellis'`",
      fallback: '',
      does: "a child runs only after its parent ran successfully in this loop or in the work a verified continuation restored (the client's own history does not count, unless `trustClientHistory`); `'from-trellis'` offers every tool Trellis lists, each gated by its `_meta.parent`",
    },
  }),
  maxTurns: wholeNumber(1, 50, 6, {
    does: 'model calls in one loop of this binding (left out: 6, whatever `defaultMaxTurns` says)',
  }),
  toolTimeoutSec: wholeNumber(1, 300, 30, { does: 'per tool call' }),
  /** a tool's progress notification starts its timeout afresh, up to the total budget (default false) */
  resetTimeoutOnProgress: defaulted<boolean>({
    schema: Joi.boolean().default(false),
    hint: 'it must be true (a progress notification starts the tool timeout afresh, up to totalBudgetSec) or false (default), e.g. resetTimeoutOnProgress: true',
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does: "a tool's MCP progress notification starts its `toolTimeoutSec` afresh, so a tool that keeps reporting may run up to `totalBudgetSec`; the timeout text stays `timed out after <toolTimeoutSec>s`",
    },
  }),
  trellis: option<TrellisOption>({ schema: trellisOption.schema }),
  toolSearch: option<ToolSearchOptions | false>({ schema: toolSearchOption.schema }),
  /** which calls a person approves before they run, in OpenAI's words (default 'never') */
  requireApproval: defaulted<RequireApproval>({
    schema: Joi.alternatives(
      Joi.string().valid('always', 'never'),
      Joi.object({ never: Joi.object({ toolNames: Joi.array().items(Joi.string()).required() }).required() }),
    ).default('never'),
    hint: "it must be 'always', 'never' (default) or { never: { toolNames: [...] } } (every tool but those named), e.g. requireApproval: { never: { toolNames: ['notes_read'] } }",
    doc: {
      range: "`'always'`, `'never'` or `{ never: { toolNames: [...] } }`",
      fallback: "`'never'`",
      does: "which calls a person approves before they run, in OpenAI's words ([approvals](approvals.md#a-person-approves-a-tool-call))",
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

/** The run-time tunables: `settings.update()` changes them for the loops that start after it. */
export const settingsOptions = {
  totalBudgetSec: wholeNumber(1, 3600, 120, {
    does: 'one wall-clock deadline over all turns; cuts a running model or tool call short; run-time tunable',
  }),
  defaultMaxTurns: wholeNumber(1, 50, 6, {
    does: "turns of loops without a binding (web_search-only); not a default for bindings' `maxTurns`; run-time tunable",
  }),
  maxToolCallsPerTurn: wholeNumber(1, 64, 8, {
    does: 'calls past the cap never run and are removed from the assistant message; run-time tunable',
  }),
  /** undefined: no token budget */
  maxTokensPerLoop: limit(
    1,
    1_000_000_000,
    50_000,
    "summed `usage.total_tokens` of the loop's turns; once reached, the loop stops like the other budgets (`x-agent-loop-stop: tokens`); run-time tunable",
  ),
  keyBudget: keyBudgetOption,
};

const approvalOptions = {
  tool: defaulted<string>({
    schema: Joi.string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .default(APPROVAL_TOOL),
    hint: `it must be the name of the tool a client declares (in tools) to approve calls, letters, digits, _ and - (default '${APPROVAL_TOOL}'), e.g. tool: '${APPROVAL_TOOL}'`,
    qualified: true,
  }),
  ttlSec: wholeNumber(10, 86400, APPROVAL_TTL_SEC, { does: 'how long an approval can still be given' }),
};

/** `maxReplyBytes`' ceiling: a string past about 512 MiB is more than V8 can hold */
const MAX_REPLY_BYTES_CEILING = 256 * 1024 * 1024;

/** Every option of `agentLoop(...)`, declared once: docs/options.md's table is checked against these, row for row. */
export const loopOptions = {
  ...settingsOptions,
  trellis: trellisOption,
  bindings: defaulted<OptionsIn<typeof bindingOptions>[], OptionsOut<typeof bindingOptions>[]>({
    schema: Joi.array()
      .items(schemaOf(bindingOptions))
      .unique('name')
      .messages({ 'array.unique': 'bindings[{#dupePos}] has that name too' })
      .default([]),
    hint: "it must be a list of bindings, e.g. [{ name: 'repo-agent', match: { model: 'gpt-*' }, hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }] }]",
    doc: {
      range:
        '`{ name, match, hierarchy, maxTurns?, toolTimeoutSec?, resetTimeoutOnProgress?, requireApproval?, toolSearch?, trellis? }`',
      fallback: '`[]`',
      does: 'when the loop runs and with which tools',
    },
    list: true,
    inner: bindingOptions,
  }),
  internalSecret: option<string>({
    schema: Joi.string().min(32),
    hint: 'it must be a string of at least 32 characters, e.g. the output of `openssl rand -hex 32`; or leave it out and set MCP_INTERNAL_SECRET',
    doc: {
      range: '32+ characters',
      fallback: 'env `MCP_INTERNAL_SECRET`, else 32 random bytes per process',
      does: 'HMAC key of the marker; set it (or `MCP_INTERNAL_SECRET`) to the same value in every process sharing a port: a `node:cluster` worker without either refuses to start',
    },
  }),
  selfUrl: option<string>({
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    hint: "it must be a base URL like 'http://127.0.0.1:3000'",
    doc: {
      range: '`http(s)://host:port`',
      fallback: 'the socket that took the request',
      does: 'base URL of a front door elsewhere: the self-calls go there over a socket',
    },
  }),
  /** how self-calls reach the front door: in this process (the default where the server is found) or over a socket */
  selfCall: option<SelfCallTransport>({
    schema: Joi.string()
      .valid('in-process', 'socket')
      .when('selfUrl', { is: Joi.exist(), then: Joi.valid(Joi.override, 'socket') }),
    hint: "it must be 'in-process' (each turn dispatched into the server that took the request, without a socket) or 'socket' (each turn over loopback HTTP); with selfUrl only 'socket', e.g. selfCall: 'socket'",
    doc: {
      range: "`'in-process'` or `'socket'`",
      fallback: "`'in-process'` (`'socket'` with `selfUrl`)",
      does: 'how a turn reaches the front door: as a connection handed to the server that took the request, in memory, or over loopback HTTP (see "The self-call without a socket")',
    },
  }),
  forwardHeaders: defaulted<string[]>({
    schema: Joi.array().items(Joi.string()).default(['authorization', 'traceparent', 'tracestate', 'x-request-id']),
    hint: "it must be a list of header names, e.g. ['authorization', 'x-api-key']",
    doc: {
      range: 'header names',
      fallback: "`['authorization', 'traceparent', 'tracestate', 'x-request-id']`",
      does: 'copied from the client request onto every turn, so turns run as the same user in the same trace (a traced turn sends its own `traceparent`)',
    },
  }),
  keepAliveSec: wholeNumber(1, 300, 10, {
    does: 'streaming clients: a `: keep-alive` comment after this many quiet seconds, once tools run',
  }),
  onClientDisconnect: defaulted<'abort' | 'finish'>({
    schema: Joi.string().valid('abort', 'finish').default('abort'),
    hint: "it must be 'abort' (cancel the loop's calls when the client goes away) or 'finish' (run the loop to its end and log it), e.g. onClientDisconnect: 'abort'",
    doc: {
      range: "`'abort'` or `'finish'`",
      fallback: "`'abort'`",
      does: "cancel the loop's calls when the client goes away, or run the loop to its end and log it",
    },
  }),
  /** tools the client's history says ran unlock their children too; by default only this loop's and verified continuations' do */
  trustClientHistory: defaulted<boolean>({
    schema: Joi.boolean().default(false),
    hint: "it must be false (default: only this loop's own turns and verified continuations unlock a child tool) or true (the client's history counts too), e.g. trustClientHistory: false",
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does: "`true`: tools that the client's history says ran successfully unlock their children too. The client writes its history, so any client can then unlock any child by writing its parent's call and result; leave it off unless every client is trusted",
    },
  }),
  /** how long a hand-back's continuation token restores the loop's work */
  continuationTtlSec: wholeNumber(10, 86400, CONTINUATION_TTL_SEC, {
    does: "how long a hand-back's continuation token restores the loop's work ([Hand-backs](loop.md#hand-backs-keep-the-loops-work))",
  }),
  maxToolResultBytes: wholeNumber(1024, 10 * 1024 * 1024, 64 * 1024, {
    does: 'a longer tool result is cut (UTF-8 safe) and ends with `[truncated: N of M bytes cut]`',
  }),
  passImages: defaulted<boolean>({
    schema: Joi.boolean().default(false),
    hint: "it must be true (tools' images go to the next turn as image parts, for vision models) or false (default: a short description), e.g. passImages: true",
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does: "tools' images reach the next turn as `image_url` parts, for vision models ([rich results](mcp.md#what-the-model-reads-of-a-tool-result)); else a short description",
    },
  }),
  /** past it, a request falls through to the normal handler with `x-agent-loop-stop: overloaded`; none: no limit */
  maxConcurrentLoops: option<number>({
    schema: Joi.number().integer().min(1),
    hint: 'it must be a whole number of 1 or more (default: no limit), e.g. maxConcurrentLoops: 500',
    doc: {
      range: '1 or more',
      fallback: 'no limit',
      does: 'past it, a new request is passed to the normal handler (never dropped, never queued) with `x-agent-loop-stop: overloaded` and a warning log line',
    },
  }),
  /** how long `close()` waits for in-flight loops before ending them with the shutdown note */
  shutdownDrainSec: wholeNumber(0, 3600, 10, {
    does: 'how long `close()` (and the CLI on SIGTERM/SIGINT) waits for in-flight loops; past it each ends with its answer so far and `[agent-loop] Stopped before a final answer: the gateway is shutting down.` (HTTP 200, `x-agent-loop-stop: shutdown`)',
  }),
  maxRepeatedCalls: wholeNumber(1, 100, 3, {
    does: 'how often one loop runs the same tool with the same arguments (keys in any order); a further call is refused with a readable text and counted in `x-agent-loop-repeated`',
  }),
  maxContextBytes: limit(
    1024,
    1024 * 1024 * 1024,
    200_000,
    "before a turn whose request (JSON bytes, tools and client history included) would pass it, this loop's oldest tool results are replaced, oldest first, by `[earlier result of '<tool>' elided: N bytes]` until it fits (a result no longer than that text stays); counted in `x-agent-loop-elided`",
  ),
  /** what one turn may read of the model's reply (JSON body or whole stream); past it the turn fails */
  maxReplyBytes: wholeNumber(1024, MAX_REPLY_BYTES_CEILING, MAX_REPLY_BYTES, {
    fallback: `${MAX_REPLY_BYTES} (${MAX_REPLY_BYTES / 1024 / 1024} MiB)`,
    does: "what one turn may hold of the model's reply: a JSON body; of a stream, the message it assembles (text, calls, other fields) and any one line or event, not the framing and envelopes that pass through to the client, so a stream may run far longer; past it the turn stops reading, cuts the upstream off and fails like any bad model reply (`the model's reply is longer than maxReplyBytes = N`; a first turn falls through to the normal handler). Also bounds the judge's LLM calls",
  }),
  judge: judgeOption,
  approval: defaulted<Partial<OptionsOut<typeof approvalOptions>>, OptionsOut<typeof approvalOptions>>({
    schema: schemaOf(approvalOptions).default(),
    hint: `it must be { tool?: the name of the tool a client declares to approve calls (default '${APPROVAL_TOOL}'), ttlSec?: ${approvalOptions.ttlSec.doc!.range} (default ${APPROVAL_TTL_SEC}) }, e.g. approval: { tool: '${APPROVAL_TOOL}' }`,
    doc: {
      range: '`{ tool?, ttlSec? }`',
      fallback: `\`{ tool: '${APPROVAL_TOOL}', ttlSec: ${APPROVAL_TTL_SEC} }\``,
      does: "the tool a client declares to approve calls (one name for every binding: it is the client's, not a binding's), and how long an approval can still be given",
    },
    inner: approvalOptions,
  }),
  webSearch: webSearchOption,
  toolSearch: toolSearchOption,
  store: storeOption,
  replicaName: option<string>({
    schema: Joi.string().min(1).max(200),
    hint: "it must be a name for this replica in the fleet's loop list, e.g. replicaName: 'gateway-a'",
    doc: {
      range: 'a string',
      fallback: '`<host name>:<pid>`',
      does: "this replica's name in the fleet-wide loop list (`replica` of each loop in `GET /admin/api/loops`) and in the store's messages ([A fleet](fleet.md))",
    },
  }),
  metrics: metricsOption,
  telemetry: telemetryOption,
  logger: option<Logger>({
    ...loggerOption,
    doc: {
      range: 'winston-compatible',
      fallback: 'winston, JSON, level `LOG_LEVEL` or `info`',
      does: 'one line per turn, per tool call, per judge verdict and per loop',
    },
  }),
};

export const settingsSchema = schemaOf(settingsOptions);

/** what `settings.update({ bindings: { <name>: ... } })` may change on a binding */
export const bindingSettingsSchema = Joi.object(
  schemasOf({ maxTurns: bindingOptions.maxTurns, toolTimeoutSec: bindingOptions.toolTimeoutSec }),
);

export const optionsSchema = schemaOf(loopOptions);

const hints = hintsOf(loopOptions);

export type Settings = OptionsOut<typeof settingsOptions>;

export type BindingSettings = OptionsOut<Pick<typeof bindingOptions, 'maxTurns' | 'toolTimeoutSec'>>;

/** What `settings.get()` shows: the global tunables, and each binding's under its name. */
export interface RunTimeSettings extends Settings {
  bindings: Record<string, BindingSettings>;
}

/** What `settings.update()` takes: any of them; `maxTokensPerLoop: null` or `keyBudget: null` (or undefined) lifts that budget. */
export type SettingsPatch = Partial<Omit<Settings, 'maxTokensPerLoop' | 'keyBudget'>> & {
  maxTokensPerLoop?: number | null;
  keyBudget?: Settings['keyBudget'] | null;
  bindings?: Record<string, Partial<BindingSettings>>;
};

export type ValidOptions = OptionsOut<typeof loopOptions>;

export type AgentLoopOptions = OptionsIn<typeof loopOptions>;

/** The options once validated, defaults filled in: one frozen object, private to the package, that every part reads. */
export type Config = Readonly<ValidOptions>;

export function configOf(options: AgentLoopOptions): Config {
  return Object.freeze(validate<ValidOptions>(optionsSchema, options));
}

/** Validates with the options' hints: agentLoop's options, or a part of them (the run-time settings). */
export function validate<T>(schema: Joi.Schema, value: unknown): T {
  return validated<T>(schema, value ?? {}, hints);
}
