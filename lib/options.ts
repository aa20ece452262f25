import Joi from 'joi';
import { FROM_TRELLIS, Hierarchy } from './hierarchy';
import type { LlmJudgeOptions } from './judge/llm';
import { judgeOptionSchema, type JudgeOption, type JudgeSettings } from './judge/options';
import type { Rule } from './judge/rule';
import { optionError } from './option-error';
import type { HierarchySource } from './trellis/catalog';
import type { WebSearchOptions } from './trellis/web-search';
import type { Binding, Judge, Logger, TrellisOption } from './types';

/** What each option must look like, by its name: the fix half of every error message. */
const hints = new Map<string, string>([
  ['trellis', "it must be a Trellis ({ listTools, callTool }), { mcp: { url: 'http://127.0.0.1:4000/mcp', headers?, forwardHeaders?: ['authorization'] } } or { mcp: { command: 'node', args: ['server.js'] } }, plus listTtlSec?: 0 to 86400 (default 60) beside url or command"],
  ['match', "it must be { model: 'gpt-*' }, { header: { 'x-agent': 'repo' } } or (req) => boolean"],
  ['internalSecret', 'it must be a string of at least 32 characters; or leave it out and set MCP_INTERNAL_SECRET'],
  ['selfUrl', "it must be a base URL like 'http://127.0.0.1:3000'"],
  ['logger', 'it must be a winston-compatible logger with error, warn, info and debug methods'],
  ['forwardHeaders', "it must be a list of header names, e.g. ['authorization', 'x-api-key']"],
  ['webSearch', "it must be { searxngUrl: 'http://127.0.0.1:8888', always?: boolean, maxResults?: 1 to 20 }"],
  ['searxngUrl', "it must be the base URL of a SearXNG instance with the JSON format enabled, e.g. 'http://127.0.0.1:8888'"],
  ['name', "it must be a unique name for the binding, e.g. 'repo-agent'"],
  ['passImages', "it must be true (tools' images go to the next turn as image parts, for vision models) or false (default: a short description)"],
  ['resetTimeoutOnProgress', 'it must be true (a progress notification starts the tool timeout afresh, up to totalBudgetSec) or false (default)'],
  ['onClientDisconnect', "it must be 'abort' (cancel the loop's calls when the client goes away) or 'finish' (run the loop to its end and log it)"],
]);

const range = (name: string, min: number, max: number, fallback: number) => {
  hints.set(name, `it must be a whole number from ${min} to ${max} (default ${fallback}), e.g. ${name}: ${fallback}`);
  return Joi.number().integer().min(min).max(max).default(fallback);
};

const isTrellis = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).callTool === 'function';

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

const hierarchySchema = Joi.any()
  .required()
  .custom((value, helpers) => {
    if (value === FROM_TRELLIS) return value;
    try {
      return new Hierarchy(Array.isArray(value) ? value : [value]);
    } catch (error) {
      return helpers.error('any.custom', { error });
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
});

export const settingsSchema = Joi.object({
  totalBudgetSec: range('totalBudgetSec', 1, 3600, 120),
  defaultMaxTurns: range('defaultMaxTurns', 1, 50, 6),
  maxToolCallsPerTurn: range('maxToolCallsPerTurn', 1, 64, 8),
});

export const optionsSchema = settingsSchema.keys({
  trellis: trellisSchema,
  bindings: Joi.array().items(bindingSchema).unique('name').default([]),
  internalSecret: Joi.string().min(32),
  selfUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
  forwardHeaders: Joi.array().items(Joi.string()).default(['authorization']),
  keepAliveSec: range('keepAliveSec', 1, 300, 10),
  onClientDisconnect: Joi.string().valid('abort', 'finish').default('abort'),
  maxToolResultBytes: range('maxToolResultBytes', 1024, 10 * 1024 * 1024, 64 * 1024),
  passImages: Joi.boolean().default(false),
  judge: judgeOptionSchema,
  webSearch: Joi.object({ searxngUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required(), always: Joi.boolean(), maxResults: Joi.number().integer().min(1).max(20) }),
  logger: Joi.object({ error: Joi.function().required(), warn: Joi.function().required(), info: Joi.function().required(), debug: Joi.function().required() })
    .unknown(),
});

export interface Settings {
  totalBudgetSec: number;
  defaultMaxTurns: number;
  maxToolCallsPerTurn: number;
}

export type ValidBinding = Omit<Required<Binding>, 'hierarchy' | 'trellis'> & { hierarchy: HierarchySource; trellis?: TrellisOption };

export interface ValidOptions extends Settings {
  trellis?: TrellisOption;
  bindings: ValidBinding[];
  internalSecret?: string;
  selfUrl?: string;
  forwardHeaders: string[];
  keepAliveSec: number;
  onClientDisconnect: 'abort' | 'finish';
  maxToolResultBytes: number;
  passImages: boolean;
  judge?: JudgeOption;
  webSearch?: WebSearchOptions;
  logger?: Logger;
}

export type JudgeOptionInput = (Judge | { rules: Rule[] } | { llm: LlmJudgeOptions } | { judge: Judge }) & Partial<JudgeSettings>;

export type AgentLoopOptions = Partial<Omit<ValidOptions, 'bindings' | 'judge'>> & { bindings?: Binding[]; judge?: JudgeOptionInput };

export function validate<T>(schema: Joi.Schema, value: unknown): T {
  const { error, value: valid } = schema.validate(value ?? {}, { abortEarly: true, convert: false });
  if (error) throw optionError(error, schema, hints);
  return valid as T;
}
