import Joi from 'joi';
import { defaultOf, option, schemaOf, wholeNumber, type OptionsIn } from '../options/declaration';

const codeModeOptions = {
  timeoutSec: {
    ...wholeNumber(1, 120, 10, { does: 'how long one program may run, its tool calls included' }),
    qualified: true,
  },
  memoryMb: {
    ...wholeNumber(8, 512, 64, { does: "the sandbox's memory in MiB; past it the program ends as out of memory" }),
    qualified: true,
  },
  maxCalls: { ...wholeNumber(1, 500, 50, { does: 'tool calls one program may make' }), qualified: true },
};

export type CodeModeOptions = OptionsIn<typeof codeModeOptions>;

/** A binding's code mode, defaults filled in. */
export interface CodeModeConfig {
  timeoutSec: number;
  memoryMb: number;
  maxCalls: number;
}

export const codeModeOption = option<CodeModeOptions | boolean, CodeModeConfig | boolean>({
  schema: Joi.alternatives(Joi.boolean(), schemaOf(codeModeOptions)),
  hint:
    'it must be true, false (default) or ' +
    '{ timeoutSec?: 1 to 120 (default 10), memoryMb?: 8 to 512 (default 64), maxCalls?: 1 to 500 (default 50) }, ' +
    'e.g. codeMode: { timeoutSec: 10 }',
  doc: {
    range: '`true`, `false` or `{ timeoutSec?, memoryMb?, maxCalls? }`',
    fallback: '`false`',
    does:
      "the model is offered one tool, `run_code`, and writes one JavaScript program that calls the binding's " +
      'tools in a sandbox, each call a real tool call of the loop ([code mode](code-mode.md))',
  },
  inner: codeModeOptions,
});

/** The binding's code mode as it runs; undefined: off. */
export function codeModeOf(valid: CodeModeConfig | boolean | undefined): CodeModeConfig | undefined {
  if (valid === undefined || valid === false) return undefined;
  const fallback = {
    timeoutSec: defaultOf(codeModeOptions.timeoutSec),
    memoryMb: defaultOf(codeModeOptions.memoryMb),
    maxCalls: defaultOf(codeModeOptions.maxCalls),
  };
  return valid === true ? fallback : { ...fallback, ...valid };
}
