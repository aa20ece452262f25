import Joi from 'joi';
import { defaulted, schemaOf, wholeNumber, type OptionsOut } from '../options/declaration';

/** The tool a client declares (in `tools`) to approve the loop's calls, unless `approval.tool` names another. */
const APPROVAL_TOOL = 'approve_tool_call';
/**
 * The tool a client declares (in `tools`) to put a tool's questions to the person, unless `input.tool` names another.
 */
const INPUT_TOOL = 'ask_user';
/** How long a question handed to the person can still be answered, unless its kind's `ttlSec` says otherwise. */
const TTL_SEC = 600;
/** How many questions one tool call may ask, one after the other, unless `input.maxRounds` says otherwise. */
const MAX_ROUNDS = 3;

/** The name of the client's tool a kind of question asks through: `does` says what the person does with it. */
const clientTool = (tool: string, does: string) =>
  defaulted<string>({
    schema: Joi.string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .default(tool),
    hint:
      `it must be the name of the tool a client declares (in tools) to ${does}, ` +
      `letters, digits, _ and - (default '${tool}'), e.g. tool: '${tool}'`,
    qualified: true,
  });

const approvalOptions = {
  tool: clientTool(APPROVAL_TOOL, 'approve calls'),
  ttlSec: wholeNumber(10, 86400, TTL_SEC, { does: 'how long an approval can still be given' }),
};

export const approvalOption = defaulted<
  Partial<OptionsOut<typeof approvalOptions>>,
  OptionsOut<typeof approvalOptions>
>({
  schema: schemaOf(approvalOptions).default(),
  hint:
    `it must be { tool?: the name of the tool a client declares to approve calls (default '${APPROVAL_TOOL}'), ` +
    `ttlSec?: ${approvalOptions.ttlSec.doc!.range} (default ${TTL_SEC}) }, e.g. approval: { tool: '${APPROVAL_TOOL}' }`,
  doc: {
    range: '`{ tool?, ttlSec? }`',
    fallback: `\`{ tool: '${APPROVAL_TOOL}', ttlSec: ${TTL_SEC} }\``,
    does:
      'the tool a client declares to approve calls ' +
      "(one name for every binding: it is the client's, not a binding's), and how long an approval can still be given",
  },
  inner: approvalOptions,
});

const inputOptions = {
  tool: clientTool(INPUT_TOOL, "ask the user a tool's questions"),
  ttlSec: {
    ...wholeNumber(1, 3600, TTL_SEC, { does: "how long a tool's question can still be answered" }),
    qualified: true,
  },
  maxRounds: wholeNumber(1, 10, MAX_ROUNDS, { does: 'how many questions one tool call may ask, one after the other' }),
};

export const inputOption = defaulted<Partial<OptionsOut<typeof inputOptions>>, OptionsOut<typeof inputOptions>>({
  schema: schemaOf(inputOptions).default(),
  hint:
    `it must be { tool?: the name of the tool a client declares to ask the user (default '${INPUT_TOOL}'), ` +
    `ttlSec?: ${inputOptions.ttlSec.doc!.range} (default ${TTL_SEC}), ` +
    `maxRounds?: ${inputOptions.maxRounds.doc!.range} (default ${MAX_ROUNDS}) }, ` +
    `e.g. input: { tool: '${INPUT_TOOL}', ttlSec: ${TTL_SEC} }`,
  doc: {
    range: '`{ tool?, ttlSec?, maxRounds? }`',
    fallback: `\`{ tool: '${INPUT_TOOL}', ttlSec: ${TTL_SEC}, maxRounds: ${MAX_ROUNDS} }\``,
    does:
      "the tool a client declares to put an MCP tool's questions (input requests) to the user, " +
      'how long a question can be answered, and how many one call may ask ' +
      '([a tool asks the person](mcp.md#a-tool-asks-the-person))',
  },
  inner: inputOptions,
});
