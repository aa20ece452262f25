import Joi from 'joi';
import { Hierarchy } from './hierarchy';
import { optionError } from './option-error';
import type { Binding, Logger, TrellisOption } from './types';

const range = (name: string, min: number, max: number, fallback: number) =>
  Joi.number()
    .integer()
    .min(min)
    .max(max)
    .default(fallback)
    .messages({ '*': `it must be a whole number from ${min} to ${max} (default ${fallback}); set ${name} within that range, e.g. ${fallback}` });

const isTrellis = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).callTool === 'function';

const trellisSchema = Joi.alternatives()
  .try(
    Joi.object({ mcp: Joi.object({ url: Joi.string().uri({ scheme: ['http', 'https'] }).required(), headers: Joi.object().pattern(/./, Joi.string()) }).required() }),
    Joi.object({ mcp: Joi.object({ command: Joi.string().required(), args: Joi.array().items(Joi.string()), env: Joi.object().pattern(/./, Joi.string()) }).required() }),
    Joi.any().custom((value, helpers) => (isTrellis(value) ? value : helpers.error('any.invalid'))),
  )
  .messages({
    '*': "it must be a Trellis ({ listTools, callTool }), { mcp: { url: 'http://127.0.0.1:4000/mcp' } } or { mcp: { command: 'node', args: ['server.js'] } }",
  });

const hierarchySchema = Joi.any()
  .required()
  .custom((value, helpers) => {
    try {
      return new Hierarchy(Array.isArray(value) ? value : [value]);
    } catch (error) {
      return helpers.message({ custom: `it must be a tool tree: ${(error as Error).message}` });
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
  .required()
  .messages({ '*': "it must be { model: 'gpt-*' }, { header: { 'x-agent': 'repo' } } or (req) => boolean" });

const bindingSchema = Joi.object({
  name: Joi.string().required(),
  match: matchSchema,
  hierarchy: hierarchySchema,
  maxTurns: range('maxTurns', 1, 50, 6),
  toolTimeoutSec: range('toolTimeoutSec', 1, 300, 30),
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
  internalSecret: Joi.string().min(32).messages({ '*': 'it must be a string of at least 32 characters; or leave it out and set MCP_INTERNAL_SECRET' }),
  selfUrl: Joi.string().uri({ scheme: ['http', 'https'] }).messages({ '*': "it must be a base URL like 'http://127.0.0.1:3000'" }),
  forwardHeaders: Joi.array().items(Joi.string()).default(['authorization']),
  logger: Joi.object({ error: Joi.function().required(), warn: Joi.function().required(), info: Joi.function().required(), debug: Joi.function().required() })
    .unknown()
    .messages({ '*': 'it must be a winston-compatible logger with error, warn, info and debug methods' }),
});

export interface Settings {
  totalBudgetSec: number;
  defaultMaxTurns: number;
  maxToolCallsPerTurn: number;
}

export type ValidBinding = Omit<Required<Binding>, 'hierarchy' | 'trellis'> & { hierarchy: Hierarchy; trellis?: TrellisOption };

export interface ValidOptions extends Settings {
  trellis?: TrellisOption;
  bindings: ValidBinding[];
  internalSecret?: string;
  selfUrl?: string;
  forwardHeaders: string[];
  logger?: Logger;
}

export type AgentLoopOptions = Partial<Omit<ValidOptions, 'bindings'>> & { bindings?: Binding[] };

export function validate<T>(schema: Joi.Schema, value: unknown): T {
  const { error, value: valid } = schema.validate(value ?? {}, { abortEarly: true, convert: false });
  if (error) throw optionError(error, schema);
  return valid as T;
}
