import Joi from 'joi';
import { option, schemaOf, type OptionsIn } from '../options/declaration';

export const ABOVE = 64;
export const MAX_RESULTS = 5;

const toolSearchOptions = {
  above: option<number>({
    schema: Joi.number().integer().min(0).max(100_000),
    hint:
      `it must be a whole number from 0 to 100000 (default ${ABOVE}): ` +
      `past that many tools, turn 1 offers only keep and tool_search, e.g. above: ${ABOVE}`,
    doc: {
      range: '0 to 100000',
      fallback: String(ABOVE),
      does: 'a binding offering more tools than this holds the rest back behind `tool_search`',
    },
  }),
  keep: option<string[]>({
    schema: Joi.array().items(Joi.string()),
    hint: "it must be a list of tool names offered from turn 1 on, e.g. keep: ['repo_open', 'repo_read']",
    doc: { range: 'tool names', fallback: '`[]`', does: 'tools offered from turn 1 on beside `tool_search`' },
  }),
  maxResults: option<number>({
    schema: Joi.number().integer().min(1).max(20),
    hint: `it must be a whole number from 1 to 20 (default ${MAX_RESULTS}), e.g. maxResults: ${MAX_RESULTS}`,
    doc: {
      range: '1 to 20',
      fallback: String(MAX_RESULTS),
      does: 'tools one `tool_search` answers (and loads) at most',
    },
  }),
  native: option<boolean>({
    schema: Joi.boolean(),
    hint:
      "it must be true (a client's own tool search goes to the upstream as the client sent it) " +
      'or false (default: the loop serves it), e.g. native: true',
    doc: {
      range: 'boolean',
      fallback: '`false`',
      does:
        "`true`: a client's own tool search (Responses `tool_search`, Messages' tool search tools, " +
        '`defer_loading`) goes upstream unchanged, for an upstream that has it',
    },
  }),
};

export type ToolSearchOptions = OptionsIn<typeof toolSearchOptions>;

/** A binding's tool search, its options and the global ones merged, defaults filled in; `false`: off. */
export interface ToolSearchConfig {
  above: number;
  keep: readonly string[];
  maxResults: number;
  native: boolean;
}

export const toolSearchOption = option<ToolSearchOptions | false>({
  schema: Joi.alternatives(Joi.valid(false), schemaOf(toolSearchOptions)),
  hint:
    `it must be false (off) or { above?: 0 to 100000 (default ${ABOVE}), keep?: [tool names], maxResults?: 1 ` +
    `to 20 (default ${MAX_RESULTS}), native?: boolean }, e.g. toolSearch: { above: ${ABOVE}, keep: ` +
    `['repo_open'] }`,
  doc: {
    range: '`false` or `{ above?, keep?, maxResults?, native? }`',
    fallback: `\`{ above: ${ABOVE}, keep: [], maxResults: ${MAX_RESULTS} }\``,
    does:
      'past `above` tools, turn 1 offers `keep` and a `tool_search` tool the loop answers itself; the tools ' +
      "found join from the next turn on, and a hand-back's follow-up offers them from its first ([tool " +
      'search](tool-search.md)); on a binding, its fields win over the global ones, and `false` on either ' +
      "turns it off (a binding's object turns it on again)",
  },
  inner: toolSearchOptions,
});

/**
 * The binding's tool search: its own fields over the global ones over the defaults; off when the one in force says
 * `false`.
 */
export function toolSearchOf(
  global: ToolSearchOptions | false | undefined,
  own: ToolSearchOptions | false | undefined,
): ToolSearchConfig | false {
  if (own === false || (own === undefined && global === false)) return false;
  const merged = { ...(global || {}), ...own };
  return {
    above: merged.above ?? ABOVE,
    keep: merged.keep ?? [],
    maxResults: merged.maxResults ?? MAX_RESULTS,
    native: merged.native ?? false,
  };
}
