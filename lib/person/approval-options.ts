import Joi from 'joi';
import { defaulted, schemaOf, wholeNumber, type OptionsOut } from '../options/declaration';

/** The tool a client declares (in `tools`) to approve the loop's calls, unless `approval.tool` names another. */
const TOOL = 'approve_tool_call';
/** How long a call handed back for approval can still be approved, unless `approval.ttlSec` says otherwise. */
const TTL_SEC = 600;

const approvalOptions = {
  tool: defaulted<string>({
    schema: Joi.string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .default(TOOL),
    hint: `it must be the name of the tool a client declares (in tools) to approve calls, letters, digits, _ and - (default '${TOOL}'), e.g. tool: '${TOOL}'`,
    qualified: true,
  }),
  ttlSec: wholeNumber(10, 86400, TTL_SEC, { does: 'how long an approval can still be given' }),
};

export const approvalOption = defaulted<
  Partial<OptionsOut<typeof approvalOptions>>,
  OptionsOut<typeof approvalOptions>
>({
  schema: schemaOf(approvalOptions).default(),
  hint: `it must be { tool?: the name of the tool a client declares to approve calls (default '${TOOL}'), ttlSec?: ${approvalOptions.ttlSec.doc!.range} (default ${TTL_SEC}) }, e.g. approval: { tool: '${TOOL}' }`,
  doc: {
    range: '`{ tool?, ttlSec? }`',
    fallback: `\`{ tool: '${TOOL}', ttlSec: ${TTL_SEC} }\``,
    does: "the tool a client declares to approve calls (one name for every binding: it is the client's, not a binding's), and how long an approval can still be given",
  },
  inner: approvalOptions,
});
