import Joi from 'joi';
import { defaulted, schemaOf, wholeNumber, type OptionsOut } from '../options/declaration';

/**
 * The tool a client declares (in `tools`) to put a tool's questions to the person, unless `input.tool` names another.
 */
const TOOL = 'ask_user';
/** How long a question handed to the person can still be answered, unless `input.ttlSec` says otherwise. */
const TTL_SEC = 600;
/** How many questions one tool call may ask, one after the other, unless `input.maxRounds` says otherwise. */
const MAX_ROUNDS = 3;

const inputOptions = {
  tool: defaulted<string>({
    schema: Joi.string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .default(TOOL),
    hint: `it must be the name of the tool a client declares (in tools) to ask the user a tool's questions, letters, digits, _ and - (default '${TOOL}'), e.g. tool: '${TOOL}'`,
    qualified: true,
  }),
  ttlSec: {
    ...wholeNumber(1, 3600, TTL_SEC, { does: "how long a tool's question can still be answered" }),
    qualified: true,
  },
  maxRounds: wholeNumber(1, 10, MAX_ROUNDS, { does: 'how many questions one tool call may ask, one after the other' }),
};

export const inputOption = defaulted<Partial<OptionsOut<typeof inputOptions>>, OptionsOut<typeof inputOptions>>({
  schema: schemaOf(inputOptions).default(),
  hint: `it must be { tool?: the name of the tool a client declares to ask the user (default '${TOOL}'), ttlSec?: ${inputOptions.ttlSec.doc!.range} (default ${TTL_SEC}), maxRounds?: ${inputOptions.maxRounds.doc!.range} (default ${MAX_ROUNDS}) }, e.g. input: { tool: '${TOOL}', ttlSec: ${TTL_SEC} }`,
  doc: {
    range: '`{ tool?, ttlSec?, maxRounds? }`',
    fallback: `\`{ tool: '${TOOL}', ttlSec: ${TTL_SEC}, maxRounds: ${MAX_ROUNDS} }\``,
    does: "the tool a client declares to put an MCP tool's questions (input requests) to the user, how long a question can be answered, and how many one call may ask ([a tool asks the person](mcp.md#a-tool-asks-the-person))",
  },
  inner: inputOptions,
});
