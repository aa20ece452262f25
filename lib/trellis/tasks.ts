import type { Client, Transport } from '@modelcontextprotocol/client';
import type * as Zod from 'zod';
import { setTimeout as sleep } from 'node:timers/promises';
import { onAbort, settledWithin } from '../shared/signals';
import type { CallToolOptions, CallToolResult, InputAnswers, ToolTask } from '../types';

/**
 * MCP tasks (`io.modelcontextprotocol/tasks`, SEP-2663), spoken beside the SDK until it speaks them itself: this
 * module is all there is of them, so it goes when the SDK gains tasks.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The client capabilities that declare the extension; on 2026-07-28 the SDK puts them in every request's `_meta`. */
export const tasksCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };

/** Where the seam leaves a task handle in the `_meta` of the stand-in result the SDK's codec accepts. */
const TASK_KEY = 'express-agent-loop/task';
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5000;
const CANCEL_TIMEOUT_MS = 2000;
const SETTLE_MS = 1000;
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
type TaskState = ReturnType<ReturnType<typeof defineSchemas>['task']['parse']>;

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

/** The server's `pollIntervalMs`, bounded so that no server makes the loop poll hot or wait for minutes. */
export function pollDelay(pollIntervalMs: number | undefined): number {
  if (pollIntervalMs === undefined || !Number.isFinite(pollIntervalMs)) return 1000;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollIntervalMs));
}

function taskOf(result: CallToolResult): TaskState | undefined {
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
async function get(client: Client, taskId: string, signal: AbortSignal | undefined): Promise<TaskState> {
  const got = await client.request({ method: 'tasks/get', params: { taskId } }, schemas().task, {
    signal,
    timeout: REQUEST_TIMEOUT_MS,
  });
  if (got.taskId !== taskId) throw new Error(`tasks/get for ${taskId} answered ${got.taskId}`);
  return got;
}

/** Follows the tasks that tool calls answer with, and cancels those whose call ends first. */
// eslint-disable-next-line max-lines-per-function -- issue 39: not split yet (see the functions branch's report)
export function taskFollower() {
  const cancels = new Set<Promise<unknown>>();

  /**
   * Ends the task (`tasks/cancel`); resolves once the server took it, or did not in time (a close waits for it too).
   */
  function cancel(client: Client, taskId: string): Promise<void> {
    const sent: Promise<void> = client
      .request({ method: 'tasks/cancel', params: { taskId } }, schemas().acknowledged, { timeout: CANCEL_TIMEOUT_MS })
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => cancels.delete(sent));
    cancels.add(sent);
    return sent;
  }

  async function poll(client: Client, first: TaskState, options: CallToolOptions): Promise<CallToolResult> {
    const { signal, onTask } = options;
    let task = first;
    let told: ToolTask | undefined;
    for (;;) {
      const seen: ToolTask = {
        id: task.taskId,
        status: task.status,
        ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
      };
      if (told?.status !== seen.status || told.statusMessage !== seen.statusMessage) onTask?.((told = seen));
      if (task.status === 'completed') return { content: [], ...task.result } as CallToolResult;
      const { inputRequests } = task;
      // the person is asked as for a call's input_required; their answers come back through resume()
      if (task.status === 'input_required' && inputRequests && Object.keys(inputRequests).length > 0)
        return { content: [], resultType: 'input_required', inputRequests, taskId: task.taskId } as CallToolResult;
      if (task.status !== 'working') throw new Error(taskEndedText(task));
      await sleep(pollDelay(task.pollIntervalMs), undefined, { signal });
      task = await get(client, first.taskId, signal);
    }
  }

  /**
   * Follows the task `taskId` from its state `first` until it ends or asks the person; the call ending first cancels
   * it.
   */
  async function followTask(
    client: Client,
    taskId: string,
    first: () => Promise<TaskState>,
    options: CallToolOptions,
  ): Promise<CallToolResult> {
    // the call ending first (its timeout, the loop's budget, the client gone, shutdown) ends the task with it, at
    // once: a close() that follows the abort must find the cancel on its way
    const stop = onAbort(options.signal, () => void cancel(client, taskId));
    try {
      return await poll(client, await first(), options);
    } finally {
      stop();
    }
  }

  return {
    cancel,
    /** `result` itself, or when it is a task handle, the task's result once it completed (polled on `client`). */
    async follow(client: Client, result: CallToolResult, options: CallToolOptions): Promise<CallToolResult> {
      const task = taskOf(result);
      return task ? followTask(client, task.taskId, async () => task, options) : result;
    },
    /**
     * The person's answers to a task that asked (`tasks/update`), then the task followed again; a task the server
     * no longer has, or that refuses the answers, fails the call naming it.
     */
    async resume(client: Client, answers: InputAnswers & { taskId: string }, options: CallToolOptions) {
      const { taskId, inputResponses } = answers;
      const { signal } = options;
      return followTask(
        client,
        taskId,
        async () => {
          try {
            const params = { taskId, inputResponses };
            await client.request({ method: 'tasks/update', params }, schemas().acknowledged, {
              signal,
              timeout: REQUEST_TIMEOUT_MS,
            });
            return await get(client, taskId, signal);
          } catch (error) {
            if (signal?.aborted) throw error;
            throw new Error(`task ${taskId} did not take the person's answers: ${(error as Error).message}`);
          }
        },
        options,
      );
    },
    /** Waits (a little) for the cancels still on their way, before the connections close under them. */
    async settled(): Promise<void> {
      await settledWithin(Promise.all(cancels), SETTLE_MS);
    },
  };
}

export type TaskFollower = ReturnType<typeof taskFollower>;
