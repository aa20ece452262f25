import Joi from 'joi';
import { FROM_TRELLIS, Hierarchy, NODE_KEYS, unknownNodeKey } from './hierarchy';
import type { LlmJudgeOptions } from './judge/llm';
import { APPROVAL_TOOL, APPROVAL_TTL_SEC, type ApprovalOptions } from './loop/approval';
import { CONTINUATION_TTL_SEC } from './loop/continuation';
import { MAX_REPLY_BYTES } from './loop/turn-stream';
import { judgeOptionSchema, type JudgeOption, type JudgeSettings } from './judge/options';
import type { Rule } from './judge/rule';
import { distance, validated } from './option-error';
import type { MetricsOption, TelemetryOption } from './telemetry/options';
import type { HierarchySource } from './trellis/catalog';
import type { WebSearchOptions } from './trellis/web-search';
import type { Binding, Judge, Logger, SelfCallTransport, TrellisOption } from './types';

/** What each option must look like, by its name: the fix half of every error message. */
const hints = new Map<string, string>([
  ['trellis', "it must be a Trellis ({ listTools, callTool }), { mcp: { url: 'http://127.0.0.1:4000/mcp', headers?, forwardHeaders?: ['authorization'] } } or { mcp: { command: 'node', args: ['server.js'] } }, plus listTtlSec?: 0 to 86400 (default 60) beside url or command"],
  ['mcp.url', "it must be the server's http(s) URL, scheme included, e.g. url: 'http://127.0.0.1:4000/mcp'"],
  ['bindings', "it must be a list of bindings, e.g. [{ name: 'repo-agent', match: { model: 'gpt-*' }, hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }] }]"],
  ['match', "it must be { model: 'gpt-*' }, { header: { 'x-agent': 'repo' } } or (req) => boolean"],
  ['match.model', "it must be a model name glob or a list of them, e.g. model: 'gpt-*' or model: ['gpt-4o', 'llama3*']"],
  ['match.header', "it must map header names to value globs, e.g. header: { 'x-agent': 'repo*' }"],
  ['hierarchy', "it must be a tool tree, e.g. hierarchy: 'clock_now', hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }], or hierarchy: 'from-trellis'"],
  ['internalSecret', "it must be a string of at least 32 characters, e.g. the output of `openssl rand -hex 32`; or leave it out and set MCP_INTERNAL_SECRET"],
  ['selfUrl', "it must be a base URL like 'http://127.0.0.1:3000'"],
  ['selfCall', "it must be 'in-process' (each turn dispatched into the server that took the request, without a socket) or 'socket' (each turn over loopback HTTP); with selfUrl only 'socket', e.g. selfCall: 'socket'"],
  ['logger', 'it must be a winston-compatible logger with error, warn, info and debug methods, e.g. logger: winston.createLogger()'],
  ['forwardHeaders', "it must be a list of header names, e.g. ['authorization', 'x-api-key']"],
  ['webSearch', "it must be { searxngUrl, always?: boolean, maxResults?: 1 to 20 }, e.g. webSearch: { searxngUrl: 'http://127.0.0.1:8888', always: false }"],
  ['maxResults', 'it must be a whole number from 1 to 20 (default 5), e.g. maxResults: 5'],
  ['judge', "it must be a Judge ({ evaluate }), { rules: [...] }, { llm: { model, policy } } or { judge }, e.g. judge: { rules: [{ surface: 'tool_call', tool: 'shell', action: 'block' }], mode: 'enforce' }"],
  ['rules', "rules are a list like [{ surface: 'tool_call', tool: 'files_*', when: { argument: 'path', matches: '^/etc/' }, action: 'block', reason: 'no system files' }]"],
  ['surface', "it must be 'tool_call' (before a call runs) or 'context' (its result, before the model reads it), e.g. surface: 'tool_call'"],
  ['action', "it must be 'allow', 'block', 'rewrite' or 'ask' (a person approves the call first), e.g. action: 'block'"],
  ['tool', "it must be a tool name glob, e.g. tool: 'files_*'"],
  ['when', "it must be { argument: 'dotted.path', matches: 'regex' }, { argument: 'dotted.path', within: ['/folder'] }, { content: 'regex' } or { annotation: 'destructiveHint', is?: true }, e.g. when: { argument: 'path', within: ['/srv/docs'] }"],
  ['llm', "it must be { model, policy }, e.g. llm: { model: 'gpt-4o-mini', policy: 'Block any call that deletes data.' }"],
  ['mode', "it must be 'enforce' (verdicts apply) or 'monitor' (verdicts are only logged), e.g. mode: 'enforce'"],
  ['timeoutSec', 'it must be a number of seconds from 0.1 to 120 (default 10), e.g. timeoutSec: 10'],
  ['onError', "it must be 'block' (a failing judge blocks) or 'allow', e.g. onError: 'block'"],
  ['searxngUrl', "it must be the base URL of a SearXNG instance with the JSON format enabled, e.g. 'http://127.0.0.1:8888'"],
  ['maxConcurrentLoops', 'it must be a whole number of 1 or more (default: no limit), e.g. maxConcurrentLoops: 500'],
  ['name', "it must be a unique name for the binding, e.g. 'repo-agent'"],
  ['passImages', "it must be true (tools' images go to the next turn as image parts, for vision models) or false (default: a short description), e.g. passImages: true"],
  ['resetTimeoutOnProgress', 'it must be true (a progress notification starts the tool timeout afresh, up to totalBudgetSec) or false (default), e.g. resetTimeoutOnProgress: true'],
  ['metrics', "it must be false or { registry?: a prom-client Registry, prefix?: 'agent_loop_' }, e.g. metrics: { prefix: 'agent_loop_' }"],
  ['registry', "it must be a prom-client Registry, e.g. registry: new Registry() (import { Registry } from 'prom-client')"],
  ['prefix', "it must be a Prometheus metric name prefix (letters, digits, _ and :), e.g. prefix: 'agent_loop_'"],
  ['telemetry', 'it must be { tracing?: boolean, captureContent?: boolean }, e.g. telemetry: { captureContent: false }'],
  ['requireApproval', "it must be 'always', 'never' (default) or { never: { toolNames: [...] } } (every tool but those named), e.g. requireApproval: { never: { toolNames: ['notes_read'] } }"],
  ['toolNames', "it must be a list of tool names, e.g. toolNames: ['notes_open', 'notes_read']"],
  ['approval.tool', "it must be the name of the tool a client declares (in tools) to approve calls, letters, digits, _ and - (default 'approve_tool_call'), e.g. tool: 'approve_tool_call'"],
  ['approval', "it must be { tool?: the name of the tool a client declares to approve calls (default 'approve_tool_call'), ttlSec?: 10 to 86400 (default 600) }, e.g. approval: { tool: 'approve_tool_call' }"],
  ['trustClientHistory', "it must be false (default: only this loop's own turns and verified continuations unlock a child tool) or true (the client's history counts too), e.g. trustClientHistory: false"],
  ['onClientDisconnect', "it must be 'abort' (cancel the loop's calls when the client goes away) or 'finish' (run the loop to its end and log it), e.g. onClientDisconnect: 'abort'"],
]);

const range = (name: string, min: number, max: number, fallback: number) => {
  hints.set(name, `it must be a whole number from ${min} to ${max} (default ${fallback}), e.g. ${name}: ${fallback}`);
  return Joi.number().integer().min(min).max(max).default(fallback);
};

/** A cap that is off unless it is set. */
const limit = (name: string, min: number, max: number, example: number) => {
  hints.set(name, `it must be a whole number from ${min} to ${max}, or left out for no limit, e.g. ${name}: ${example}`);
  return Joi.number().integer().min(min).max(max);
};

/** `maxReplyBytes`' ceiling: a string past about 512 MiB is more than V8 can hold */
const MAX_REPLY_BYTES_CEILING = 256 * 1024 * 1024;

/** the default of `shutdownDrainSec`: the CLI gives a request still running after the drain as long again */
export const SHUTDOWN_DRAIN_SEC = 10;

const isTrellis = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).callTool === 'function';

const isRegistry = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).getSingleMetric === 'function';

const listTtlSec = Joi.number().integer().min(0).max(86400);

const trellisSchema = Joi.alternatives()
  .try(
    Joi.object({
      mcp: Joi.object({
        url: Joi.string().uri({ scheme: ['http', 'https'] }).required(),
        headers: Joi.object().pattern(/./, Joi.string()),
        forwardHeaders: Joi.array().items(Joi.string().pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/)),
        listTtlSec,
      }).required(),
    }),
    Joi.object({ mcp: Joi.object({ command: Joi.string().required(), args: Joi.array().items(Joi.string()), env: Joi.object().pattern(/./, Joi.string()), listTtlSec }).required() }),
    Joi.any().custom((value, helpers) => (isTrellis(value) ? value : helpers.error('any.invalid'))),
  );

/** A bare string a few keystrokes from 'from-trellis' is a typo, not a one-tool tree: taken as a tool, it would offer nothing. */
function nearFromTrellis(value: unknown): boolean {
  return typeof value === 'string' && value !== FROM_TRELLIS && distance(value.toLowerCase(), FROM_TRELLIS) <= 3;
}

const hierarchySchema = Joi.any()
  .required()
  .custom((value, helpers) => {
    if (value === FROM_TRELLIS) return value;
    if (nearFromTrellis(value)) {
      const error = new Error(`did you mean '${FROM_TRELLIS}'? That takes the tree from Trellis; a single tool named ${JSON.stringify(value)} is written [${JSON.stringify(value)}]`);
      return helpers.error('any.custom', { error });
    }
    // A misspelt node key (`childern`) is a misspelt option: taken as is, the children would silently disappear.
    const misspelt = unknownNodeKey(value);
    if (misspelt) {
      const { state } = helpers as unknown as { state: { path: (string | number)[]; localize(path: (string | number)[]): Joi.State } };
      return helpers.error('object.unknown', { child: misspelt.at(-1), known: NODE_KEYS }, state.localize([...state.path, ...misspelt]));
    }
    try {
      return new Hierarchy(Array.isArray(value) ? value : [value]);
    } catch (error) {
      return helpers.error('any.custom', { error: new Error(`it must be a tool tree: ${(error as Error).message}`) });
    }
  });

const matchSchema = Joi.alternatives()
  .try(
    Joi.function(),
    Joi.object({
      model: Joi.alternatives(Joi.string(), Joi.array().items(Joi.string()).min(1)),
      header: Joi.object().pattern(/./, Joi.string()).min(1),
    }).or('model', 'header'),
  )
  .required();

const bindingSchema = Joi.object({
  name: Joi.string().required(),
  match: matchSchema,
  hierarchy: hierarchySchema,
  maxTurns: range('maxTurns', 1, 50, 6),
  toolTimeoutSec: range('toolTimeoutSec', 1, 300, 30),
  resetTimeoutOnProgress: Joi.boolean().default(false),
  trellis: trellisSchema,
  requireApproval: Joi.alternatives(Joi.string().valid('always', 'never'), Joi.object({ never: Joi.object({ toolNames: Joi.array().items(Joi.string()).required() }).required() })).default('never'),
});

/** what `settings.update({ bindings: { <name>: ... } })` may change on a binding */
export const bindingSettingsSchema = Joi.object({ maxTurns: bindingSchema.extract('maxTurns'), toolTimeoutSec: bindingSchema.extract('toolTimeoutSec') });

export const settingsSchema = Joi.object({
  totalBudgetSec: range('totalBudgetSec', 1, 3600, 120),
  defaultMaxTurns: range('defaultMaxTurns', 1, 50, 6),
  maxToolCallsPerTurn: range('maxToolCallsPerTurn', 1, 64, 8),
  maxTokensPerLoop: limit('maxTokensPerLoop', 1, 1_000_000_000, 50_000),
});

export const optionsSchema = settingsSchema.keys({
  trellis: trellisSchema,
  bindings: Joi.array().items(bindingSchema).unique('name').messages({ 'array.unique': 'bindings[{#dupePos}] has that name too' }).default([]),
  internalSecret: Joi.string().min(32),
  selfUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
  selfCall: Joi.string().valid('in-process', 'socket').when('selfUrl', { is: Joi.exist(), then: Joi.valid(Joi.override, 'socket') }),
  forwardHeaders: Joi.array().items(Joi.string()).default(['authorization', 'traceparent', 'tracestate', 'x-request-id']),
  keepAliveSec: range('keepAliveSec', 1, 300, 10),
  onClientDisconnect: Joi.string().valid('abort', 'finish').default('abort'),
  trustClientHistory: Joi.boolean().default(false),
  continuationTtlSec: range('continuationTtlSec', 10, 86400, CONTINUATION_TTL_SEC),
  maxToolResultBytes: range('maxToolResultBytes', 1024, 10 * 1024 * 1024, 64 * 1024),
  passImages: Joi.boolean().default(false),
  maxConcurrentLoops: Joi.number().integer().min(1),
  shutdownDrainSec: range('shutdownDrainSec', 0, 3600, SHUTDOWN_DRAIN_SEC),
  maxRepeatedCalls: range('maxRepeatedCalls', 1, 100, 3),
  maxContextBytes: limit('maxContextBytes', 1024, 1024 * 1024 * 1024, 200_000),
  maxReplyBytes: range('maxReplyBytes', 1024, MAX_REPLY_BYTES_CEILING, MAX_REPLY_BYTES),
  judge: judgeOptionSchema,
  approval: Joi.object({ tool: Joi.string().pattern(/^[a-zA-Z0-9_-]{1,64}$/).default(APPROVAL_TOOL), ttlSec: range('ttlSec', 10, 86400, APPROVAL_TTL_SEC) }).default(),
  webSearch: Joi.object({ searxngUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required(), always: Joi.boolean(), maxResults: Joi.number().integer().min(1).max(20) }),
  metrics: Joi.alternatives(
    Joi.boolean().valid(false),
    Joi.object({ registry: Joi.any().custom((value, helpers) => (isRegistry(value) ? value : helpers.error('any.invalid'))), prefix: Joi.string().pattern(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'Prometheus metric name') }),
  ),
  telemetry: Joi.object({ tracing: Joi.boolean(), captureContent: Joi.boolean() }),
  logger: Joi.object({ error: Joi.function().required(), warn: Joi.function().required(), info: Joi.function().required(), debug: Joi.function().required() })
    .unknown(),
});

export interface Settings {
  totalBudgetSec: number;
  defaultMaxTurns: number;
  maxToolCallsPerTurn: number;
  /** undefined: no token budget */
  maxTokensPerLoop?: number;
}

export interface BindingSettings {
  maxTurns: number;
  toolTimeoutSec: number;
}

/** What `settings.get()` shows: the global tunables, and each binding's under its name. */
export interface RunTimeSettings extends Settings {
  bindings: Record<string, BindingSettings>;
}

/** What `settings.update()` takes: any of them; `maxTokensPerLoop: null` (or undefined) lifts the token budget. */
export type SettingsPatch = Partial<Omit<Settings, 'maxTokensPerLoop'>> & { maxTokensPerLoop?: number | null; bindings?: Record<string, Partial<BindingSettings>> };

export type ValidBinding = Omit<Required<Binding>, 'hierarchy' | 'trellis'> & { hierarchy: HierarchySource; trellis?: TrellisOption };

export interface ValidOptions extends Settings {
  trellis?: TrellisOption;
  bindings: ValidBinding[];
  internalSecret?: string;
  selfUrl?: string;
  /** how self-calls reach the front door: in this process (the default where the server is found) or over a socket */
  selfCall?: SelfCallTransport;
  forwardHeaders: string[];
  keepAliveSec: number;
  onClientDisconnect: 'abort' | 'finish';
  /** tools the client's history says ran unlock their children too; by default only this loop's and verified continuations' do */
  trustClientHistory: boolean;
  /** how long a hand-back's continuation token restores the loop's work */
  continuationTtlSec: number;
  maxToolResultBytes: number;
  passImages: boolean;
  /** past it, a request falls through to the normal handler with `x-agent-loop-stop: overloaded`; none: no limit */
  maxConcurrentLoops?: number;
  /** how long `close()` waits for in-flight loops before ending them with the shutdown note */
  shutdownDrainSec: number;
  maxRepeatedCalls: number;
  maxContextBytes?: number;
  /** what one turn may read of the model's reply (JSON body or whole stream); past it the turn fails */
  maxReplyBytes: number;
  judge?: JudgeOption;
  approval: ApprovalOptions;
  webSearch?: WebSearchOptions;
  logger?: Logger;
  metrics?: MetricsOption | false;
  telemetry?: TelemetryOption;
}

export type JudgeOptionInput = (Judge | { rules: Rule[] } | { llm: LlmJudgeOptions } | { judge: Judge }) & Partial<JudgeSettings>;

export type AgentLoopOptions = Partial<Omit<ValidOptions, 'bindings' | 'judge' | 'approval'>> & { bindings?: Binding[]; judge?: JudgeOptionInput; approval?: Partial<ApprovalOptions> };

export function validate<T>(schema: Joi.Schema, value: unknown): T {
  return validated<T>(schema, value ?? {}, hints);
}
