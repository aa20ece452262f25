import Joi from 'joi';
import { bindingOptions, trellisOption } from '../binding/options';
import { judgeOption } from '../judge/options';
import { approvalOption, inputOption } from '../person/options';
import { validated } from './option-error';
import {
  defaulted,
  hintsOf,
  limit,
  loggerOption,
  option,
  schemaOf,
  tunable,
  wholeNumber,
  type OptionsIn,
  type OptionsOut,
} from './declaration';
import { keyBudgetOption, storeOption } from '../store/options';
import { metricsOption, telemetryOption } from '../telemetry/options';
import { toolSearchOption } from '../tool-search/options';
import { webSearchOption } from '../trellis/web-search';
import type { Logger, SelfCallTransport } from '../types';

/** `maxReplyBytes`' ceiling: a string past about 512 MiB is more than V8 can hold */
const MAX_REPLY_BYTES_CEILING = 256 * 1024 * 1024;
/** the default of `maxReplyBytes`: 32 MiB, far more than any model's reply */
export const MAX_REPLY_BYTES = 32 * 1024 * 1024;

/** Every option of `agentLoop(...)`, declared once: docs/options.md's table is checked against these, row for row. */
export const loopOptions = {
  totalBudgetSec: tunable(
    wholeNumber(1, 3600, 120, {
      does: 'one wall-clock deadline over all turns; cuts a running model or tool call short; run-time tunable',
    }),
  ),
  defaultMaxTurns: tunable(
    wholeNumber(1, 50, 6, {
      does:
        'turns of loops without a binding (web_search-only); ' +
        "not a default for bindings' `maxTurns`; run-time tunable",
    }),
  ),
  maxToolCallsPerTurn: tunable(
    wholeNumber(1, 64, 8, {
      does: 'calls past the cap never run and are removed from the assistant message; run-time tunable',
    }),
  ),
  /** undefined: no token budget */
  maxTokensPerLoop: tunable(
    limit(
      1,
      1_000_000_000,
      50_000,
      "summed `usage.total_tokens` of the loop's turns; once reached, " +
        'the loop stops like the other budgets (`x-agent-loop-stop: tokens`); run-time tunable',
    ),
  ),
  keyBudget: tunable(keyBudgetOption),
  trellis: trellisOption,
  bindings: defaulted<OptionsIn<typeof bindingOptions>[], OptionsOut<typeof bindingOptions>[]>({
    schema: Joi.array()
      .items(schemaOf(bindingOptions))
      .unique('name')
      .messages({ 'array.unique': 'bindings[{#dupePos}] has that name too' })
      .default([]),
    hint:
      "it must be a list of bindings, e.g. [{ name: 'repo-agent', match: { model: 'gpt-*' }, " +
      "hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }] }]",
    doc: {
      range:
        '`{ name, match, hierarchy, maxTurns?, toolTimeoutSec?, toolTimeouts?, ' +
        'resetTimeoutOnProgress?, requireApproval?, toolSearch?, codeMode?, trellis? }`',
      fallback: '`[]`',
      does: 'when the loop runs and with which tools',
    },
    list: true,
    inner: bindingOptions,
  }),
  internalSecret: option<string>({
    schema: Joi.string().min(32),
    hint:
      'it must be a string of at least 32 characters, e.g. ' +
      'the output of `openssl rand -hex 32`; or leave it out and set MCP_INTERNAL_SECRET',
    doc: {
      range: '32+ characters',
      fallback: 'env `MCP_INTERNAL_SECRET`, else 32 random bytes per process',
      does:
        'HMAC key of the marker; set it (or `MCP_INTERNAL_SECRET`) ' +
        'to the same value in every process sharing a port: ' +
        'a `node:cluster` worker without either refuses to start',
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
    hint:
      "it must be 'in-process' (each turn dispatched into the server that took the request, without a " +
      "socket) or 'socket' (each turn over loopback HTTP); with selfUrl only 'socket', e.g. selfCall: 'socket'",
    doc: {
      range: "`'in-process'` or `'socket'`",
      fallback: "`'in-process'` (`'socket'` with `selfUrl`)",
      does:
        'how a turn reaches the front door: as a connection handed to the server that took the request, ' +
        'in memory, or over loopback HTTP (see "The self-call without a socket")',
    },
  }),
  forwardHeaders: defaulted<string[]>({
    schema: Joi.array().items(Joi.string()).default(['authorization', 'traceparent', 'tracestate', 'x-request-id']),
    hint: "it must be a list of header names, e.g. ['authorization', 'x-api-key']",
    doc: {
      range: 'header names',
      fallback: "`['authorization', 'traceparent', 'tracestate', 'x-request-id']`",
      does:
        'copied from the client request onto every turn, ' +
        'so turns run as the same user in the same trace (a traced turn sends its own `traceparent`)',
    },
  }),
  keepAliveSec: wholeNumber(1, 300, 10, {
    does: 'streaming clients: a `: keep-alive` comment after this many quiet seconds, once tools run',
  }),
  onClientDisconnect: defaulted<'abort' | 'finish'>({
    schema: Joi.string().valid('abort', 'finish').default('abort'),
    hint:
      "it must be 'abort' (cancel the loop's calls when the client goes away) " +
      "or 'finish' (run the loop to its end and log it), e.g. onClientDisconnect: 'abort'",
    doc: {
      range: "`'abort'` or `'finish'`",
      fallback: "`'abort'`",
      does: "cancel the loop's calls when the client goes away, or run the loop to its end and log it",
    },
  }),
  /**
   * tools the client's history says ran unlock their children too; by default only this loop's and verified
   * continuations' do
   */
  trustClientHistory: defaulted<boolean>({
    schema: Joi.boolean().default(false),
    hint:
      "it must be false (default: only this loop's own turns and verified continuations unlock a child tool) " +
      "or true (the client's history counts too), e.g. trustClientHistory: false",
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does:
        "`true`: tools that the client's history says ran successfully unlock their children too. The client " +
        "writes its history, so any client can then unlock any child by writing its parent's call and result; " +
        'leave it off unless every client is trusted',
    },
  }),
  /** how long a hand-back's continuation token restores the loop's work */
  continuationTtlSec: wholeNumber(10, 86400, 3600, {
    does:
      "how long a hand-back's continuation token restores the loop's work " +
      '([Hand-backs](loop.md#hand-backs-keep-the-loops-work))',
  }),
  maxToolResultBytes: wholeNumber(1024, 10 * 1024 * 1024, 64 * 1024, {
    does: 'a longer tool result is cut (UTF-8 safe) and ends with `[truncated: N of M bytes cut]`',
  }),
  passImages: defaulted<boolean>({
    schema: Joi.boolean().default(false),
    hint:
      "it must be true (tools' images go to the next turn as image parts, " +
      'for vision models) or false (default: a short description), e.g. passImages: true',
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does:
        "tools' images reach the next turn as `image_url` parts, " +
        'for vision models ([rich results](mcp.md#what-the-model-reads-of-a-tool-result)); ' +
        'else a short description',
    },
  }),
  /** past it, a request falls through to the normal handler with `x-agent-loop-stop: overloaded`; none: no limit */
  maxConcurrentLoops: option<number>({
    schema: Joi.number().integer().min(1),
    hint: 'it must be a whole number of 1 or more (default: no limit), e.g. maxConcurrentLoops: 500',
    doc: {
      range: '1 or more',
      fallback: 'no limit',
      does:
        'past it, a new request is passed to the normal handler (never dropped, ' +
        'never queued) with `x-agent-loop-stop: overloaded` and a warning log line',
    },
  }),
  /** how long `close()` waits for in-flight loops before ending them with the shutdown note */
  shutdownDrainSec: wholeNumber(0, 3600, 10, {
    does:
      'how long `close()` (and the CLI on SIGTERM/SIGINT) waits for in-flight loops; past it each ends with ' +
      'its answer so far and `[agent-loop] Stopped before a final answer: the gateway is shutting down.` (HTTP ' +
      '200, `x-agent-loop-stop: shutdown`)',
  }),
  maxRepeatedCalls: wholeNumber(1, 100, 3, {
    does:
      'how often one loop runs the same tool with the same arguments (keys in any order); ' +
      'a further call is refused with a readable text and counted in `x-agent-loop-repeated`',
  }),
  maxContextBytes: limit(
    1024,
    1024 * 1024 * 1024,
    200_000,
    "before a turn whose request (JSON bytes, tools and client history included) would pass it, this loop's " +
      "oldest tool results are replaced, oldest first, by `[earlier result of '<tool>' elided: N bytes]` until " +
      'it fits (a result no longer than that text stays); counted in `x-agent-loop-elided`',
  ),
  /** what one turn may read of the model's reply (JSON body or whole stream); past it the turn fails */
  maxReplyBytes: wholeNumber(1024, MAX_REPLY_BYTES_CEILING, MAX_REPLY_BYTES, {
    fallback: `${MAX_REPLY_BYTES} (${MAX_REPLY_BYTES / 1024 / 1024} MiB)`,
    does:
      "what one turn may hold of the model's reply: a JSON body; of a stream, the message it assembles " +
      '(text, calls, other fields) and any one line or event, not the framing and envelopes that pass through ' +
      'to the client, so a stream may run far longer; past it the turn stops reading, cuts the upstream off ' +
      "and fails like any bad model reply (`the model's reply is longer than maxReplyBytes = N`; a first turn " +
      "falls through to the normal handler). Also bounds the judge's LLM calls",
  }),
  judge: judgeOption,
  approval: approvalOption,
  input: inputOption,
  webSearch: webSearchOption,
  toolSearch: toolSearchOption,
  store: storeOption,
  replicaName: option<string>({
    schema: Joi.string().min(1).max(200),
    hint: "it must be a name for this replica in the fleet's loop list, e.g. replicaName: 'gateway-a'",
    doc: {
      range: 'a string',
      fallback: '`<host name>:<pid>`',
      does:
        "this replica's name in the fleet-wide loop list (`replica` of each loop in `GET /admin/api/loops`) " +
        "and in the store's messages ([A fleet](fleet.md))",
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

export const optionsSchema = schemaOf(loopOptions);

const hints = hintsOf(loopOptions);

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
