import type { Client, Transport } from '@modelcontextprotocol/client';
import type * as Zod from 'zod';
import type { CallToolResult, InputAnswers } from '../types';

/**
 * MCP tasks (`io.modelcontextprotocol/tasks`, SEP-2663), spoken beside the SDK until it speaks them itself: this
 * module and task-follower.ts are all there is of them, so they go when the SDK gains tasks.
 */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The client capabilities that declare the extension; on 2026-07-28 the SDK puts them in every request's `_meta`. */
export const tasksCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };

/** Where the seam leaves a task handle in the `_meta` of the stand-in result the SDK's codec accepts. */
const TASK_KEY = 'express-agent-loop/task';
const CANCEL_TIMEOUT_MS = 2000;
const REQUEST_TIMEOUT_MS = 60_000;

/** The shapes of SEP-2663 the loop reads; zod is loaded with the SDK, when the first task comes, not at start-up. */
function defineSchemas() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { z } = require('zod') as typeof Zod;
  const task = z
    .object({
      taskId: z.string(),
      status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
      statusMessage: z.string().optional(),
      pollIntervalMs: z.number().optional(),
      result: z.record(z.string(), z.unknown()).optional(),
      error: z.object({ code: z.number().optional(), message: z.string() }).loose().optional(),
      inputRequests: z
        .record(z.string(), z.object({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() }))
        .optional(),
    })
    .loose();
  return { task, acknowledged: z.object({}).loose() };
}
let defined: ReturnType<typeof defineSchemas> | undefined;
const schemas = () => (defined ??= defineSchemas());
export type TaskState = ReturnType<ReturnType<typeof defineSchemas>['task']['parse']>;

/**
 * The seam below the SDK's codec, which refuses `resultType: "task"` on `tools/call` before any caller's schema runs:
 * such an answer reaches the SDK as an empty complete result carrying the task in its `_meta`.
 */
export function acceptTasks(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = function taskAware(message, extra) {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (result?.resultType !== 'task') return deliver(message, extra);
    const { resultType: _, _meta, ...task } = result;
    const meta = { ...(_meta as Record<string, unknown> | undefined), [TASK_KEY]: task };
    deliver({ ...message, result: { resultType: 'complete', content: [], _meta: meta } } as typeof message, extra);
  };
}

export function taskOf(result: CallToolResult): TaskState | undefined {
  const handle = (result as { _meta?: Record<string, unknown> })._meta?.[TASK_KEY];
  if (handle === undefined) return undefined;
  const parsed = schemas().task.safeParse(handle);
  if (!parsed.success) throw new Error(`the tool answered with a task the loop cannot read: ${parsed.error.message}`);
  return parsed.data;
}

/** What a task that ended without a result tells the model (the caller makes it `tool error: ...`). */
export function taskEndedText(task: Pick<TaskState, 'taskId' | 'status' | 'statusMessage' | 'error'>): string {
  const why = task.statusMessage ? ` (${task.statusMessage})` : '';
  if (task.status === 'failed') {
    const code = task.error?.code === undefined ? '' : ` (${task.error.code})`;
    return `task ${task.taskId} failed: ${task.error?.message ?? 'no error given'}${code}`;
  }
  if (task.status === 'cancelled') return `task ${task.taskId} was cancelled by the server${why}`;
  return `task ${task.taskId} needs input from the person but asked no question${why}`;
}

/** The task's state now (`tasks/get`). */
export async function getTask(client: Client, taskId: string, signal: AbortSignal | undefined): Promise<TaskState> {
  const got = await client.request({ method: 'tasks/get', params: { taskId } }, schemas().task, {
    signal,
    timeout: REQUEST_TIMEOUT_MS,
  });
  if (got.taskId !== taskId) throw new Error(`tasks/get for ${taskId} answered ${got.taskId}`);
  return got;
}

/** The person's answers to a task that asked (`tasks/update`), then its state. */
export async function updateTask(
  client: Client,
  { taskId, inputResponses }: InputAnswers & { taskId: string },
  signal: AbortSignal | undefined,
): Promise<TaskState> {
  const params = { taskId, inputResponses };
  await client.request({ method: 'tasks/update', params }, schemas().acknowledged, {
    signal,
    timeout: REQUEST_TIMEOUT_MS,
  });
  return getTask(client, taskId, signal);
}

/** Ends the task (`tasks/cancel`); resolves once the server took it, or did not within its time, never failing. */
export function cancelTask(client: Client, taskId: string): Promise<void> {
  return client
    .request({ method: 'tasks/cancel', params: { taskId } }, schemas().acknowledged, { timeout: CANCEL_TIMEOUT_MS })
    .then(() => undefined)
    .catch(() => undefined);
}
