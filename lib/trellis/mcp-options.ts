import Joi from 'joi';
import {
  loggerOption,
  option,
  required,
  schemasOf,
  wholeNumber,
  type OptionsIn,
  type OptionsOut,
} from '../options/declaration';
import type { Trellis } from '../types';
import { oauthOption } from './oauth/options';

/** a header name, as RFC 9110 spells a token */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const listTtlSec = wholeNumber(0, 86400, 60, {
  does:
    'how long `tools/list` is cached (a `list_changed` notification refreshes it sooner), and how long a ' +
    'changed tool definition (description, schema, annotations or `_meta.parent`) is held back as a possible ' +
    'rug pull',
});

const strings = option<Record<string, string>>({ schema: Joi.object().pattern(/./, Joi.string()) });

/** The roots a server is told of when it asks (`roots/list`, 2026-07-28 input requests): none unless listed. */
export const rootsOption = option<{ uri: string; name?: string }[]>({
  schema: Joi.array().items(
    Joi.object({
      uri: Joi.string()
        .pattern(/^file:\/\/\S+$/)
        .required(),
      name: Joi.string(),
    }),
  ),
  hint:
    "it must be a list of { uri: 'file://...', name? }, e.g. " +
    "roots: [{ uri: 'file:///srv/project', name: 'project' }]",
  qualified: true,
  doc: {
    range: "`[{ uri: 'file://...', name? }]`",
    fallback: 'none',
    does:
      'the roots that server is told of when a tool asks for them (`roots/list`); ' +
      '[a tool asks the person](mcp.md#a-tool-asks-the-person)',
  },
});

/** An MCP server over Streamable HTTP. */
export const mcpUrlOptions = {
  url: required<string>({
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    hint: "it must be the server's http(s) URL, scheme included, e.g. url: 'http://127.0.0.1:4000/mcp'",
    qualified: true,
  }),
  headers: strings,
  /**
   * names of the client request's headers (e.g. `['authorization']`) sent on this server's `tools/call` requests;
   * a call carrying them runs on a connection of its own, never shared with another user's calls
   */
  forwardHeaders: option<string[]>({
    schema: Joi.array().items(Joi.string().pattern(HEADER_NAME)),
    hint: "it must be a list of the client request's header names, e.g. forwardHeaders: ['authorization']",
    qualified: true,
    doc: {
      range: "header names, e.g. `['authorization']` (`url` servers only)",
      fallback: 'none',
      does:
        "the client request's headers sent on that server's `tools/call` requests; calls carrying them run " +
        "on a connection of that user's own ([per-user credentials](mcp.md#per-user-credentials))",
    },
  }),
  oauth: oauthOption,
  roots: rootsOption,
  /** how long `tools/list` is cached, and how long a changed tool definition waits before it is adopted */
  listTtlSec,
};

/** An MCP server as a stdio child. */
export const mcpCommandOptions = {
  command: required<string>({
    schema: Joi.string(),
    hint: "it must be the command that starts the server, e.g. command: 'node', args: ['server.js']",
    qualified: true,
  }),
  args: option<string[]>({ schema: Joi.array().items(Joi.string()) }),
  env: strings,
  roots: rootsOption,
  listTtlSec,
};

/** What only `mcpTrellis(...)` takes: agentLoop gives its own logger, and names a Trellis by its address. */
const ownOptions = {
  logger: loggerOption,
  /** names this Trellis in logs */
  name: option<string>({
    schema: Joi.string(),
    hint: "it must be a name for this Trellis in logs, e.g. name: 'notes'",
  }),
};

export const mcpTrellisOptions = { ...mcpUrlOptions, ...mcpCommandOptions, ...ownOptions };

/** `own`: the keys beside the address (mcpTrellis' logger and name) */
export const mcpAddressSchema = (own: Record<string, Joi.Schema> = {}) =>
  Joi.alternatives().try(
    Joi.object({ ...schemasOf(mcpUrlOptions), ...own }),
    Joi.object({ ...schemasOf(mcpCommandOptions), ...own }),
  );

export const mcpTrellisSchema = mcpAddressSchema(schemasOf(ownOptions)).messages({
  'alternatives.match':
    "{{#label}} must have a `url` (e.g. url: 'http://127.0.0.1:4000/mcp') " +
    "or a `command` (e.g. command: 'node', args: ['server.js'])",
});

/** The address of an MCP server, as the `trellis` option gives it. */
export type McpServerOption = OptionsIn<typeof mcpUrlOptions> | OptionsIn<typeof mcpCommandOptions>;

export type McpTrellisOptions = McpServerOption & OptionsIn<typeof ownOptions>;

/** The address once validated: its defaults (`listTtlSec`) filled in. */
export type ValidMcpServer = OptionsOut<typeof mcpUrlOptions> | OptionsOut<typeof mcpCommandOptions>;

/** `mcpTrellis`' options once validated. */
export type ValidMcpTrellisOptions = ValidMcpServer & OptionsOut<typeof ownOptions>;

/** The `trellis` option, as a binding gives it: a Trellis, or an MCP server's address. */
export type TrellisOption =
  Trellis | { mcp: OptionsIn<typeof mcpUrlOptions> } | { mcp: OptionsIn<typeof mcpCommandOptions> };

/** The `trellis` option once validated. */
export type ValidTrellisOption = Trellis | { mcp: ValidMcpServer };
