import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Joi from 'joi';
import { option } from '../options/declaration';
import type { CallToolOptions, CallToolResult, ToolTask } from '../types';
import { taskEndedText } from './tasks';

/** How a local tool runs as a task, as an MCP server's task tool would: its steps, then its end. */
export interface LocalTaskScript {
  /** the status messages of its steps, one after the other while it works */
  steps?: string[];
  /** how long each step takes (default 100 ms) */
  stepMs?: number;
  /** it fails with this error message after its steps (the handler does not run) */
  fails?: string;
  /**
   * it asks the person this after its steps (`input_required`, a form of one string field `answer`); the handler
   * runs with the person's answers (`input`) when they come
   */
  input?: string;
}

export const localTaskOption = option<LocalTaskScript>({
  schema: Joi.object({
    steps: Joi.array().items(Joi.string()),
    stepMs: Joi.number().integer().min(0).max(60_000),
    fails: Joi.string(),
    input: Joi.string(),
  }),
  hint:
    "it must script the tool as a task: { steps?: ['compiling', 'linking'], " +
    "stepMs?: 100, fails?: 'the compiler crashed', input?: 'Which branch?' }",
});

/** The form a scripted task's question is: one string field, `answer`. */
const ANSWER_FORM = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

/** Runs `handler` as a task: reports each step's status to `onTask`, then the end, as the MCP Trellis does. */
export async function runAsTask(
  script: LocalTaskScript,
  handler: () => Promise<CallToolResult>,
  { signal, onTask, input }: CallToolOptions,
): Promise<CallToolResult> {
  const resumed = input?.taskId;
  const taskId = resumed ?? randomUUID();
  const tell = (status: ToolTask['status'], statusMessage?: string) =>
    onTask?.({ id: taskId, status, ...(statusMessage === undefined ? {} : { statusMessage }) });
  for (const step of resumed === undefined ? (script.steps ?? []) : ['answered']) {
    tell('working', step);
    await sleep(script.stepMs ?? 100, undefined, { signal });
  }
  if (script.fails !== undefined) {
    tell('failed');
    throw new Error(taskEndedText({ taskId, status: 'failed', error: { message: script.fails } }));
  }
  if (script.input !== undefined && resumed === undefined) {
    tell('input_required', script.input);
    const params = { mode: 'form', message: script.input, requestedSchema: ANSWER_FORM };
    const inputRequests = { answer: { method: 'elicitation/create', params } };
    return { content: [], inputRequired: { inputRequests, taskId, answered: {} } };
  }
  const result = await handler();
  tell('completed');
  return result;
}
