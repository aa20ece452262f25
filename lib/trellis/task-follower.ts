import type { Client } from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { onAbort, settledWithin } from '../shared/signals';
import type { CallToolOptions, CallToolResult, InputAnswers, ToolTask } from '../types';
import { cancelTask, getTask, taskEndedText, taskOf, updateTask, type TaskState } from './tasks';

const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5000;
const SETTLE_MS = 1000;

/** The server's `pollIntervalMs`, bounded so that no server makes the loop poll hot or wait for minutes. */
export function pollDelay(pollIntervalMs: number | undefined): number {
  if (pollIntervalMs === undefined || !Number.isFinite(pollIntervalMs)) return 1000;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollIntervalMs));
}

/**
 * Polls the task from its state `first` (`tasks/get`), telling `onTask` each new status, until it completes (its
 * result) or asks the person (their question, as for a call's input_required; the answers come back through resume).
 */
async function pollTask(client: Client, first: TaskState, options: CallToolOptions): Promise<CallToolResult> {
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
    if (task.status === 'input_required' && inputRequests && Object.keys(inputRequests).length > 0)
      return { content: [], resultType: 'input_required', inputRequests, taskId: task.taskId } as CallToolResult;
    if (task.status !== 'working') throw new Error(taskEndedText(task));
    await sleep(pollDelay(task.pollIntervalMs), undefined, { signal });
    task = await getTask(client, first.taskId, signal);
  }
}

/** The task's state once it took the person's answers; a task that is gone or refuses them fails naming it. */
async function answeredTask(
  client: Client,
  answers: InputAnswers & { taskId: string },
  signal: AbortSignal | undefined,
): Promise<TaskState> {
  try {
    return await updateTask(client, answers, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Error(`task ${answers.taskId} did not take the person's answers: ${(error as Error).message}`);
  }
}

/** Follows the tasks that tool calls answer with, and cancels those whose call ends first. */
export function taskFollower() {
  const cancels = new Set<Promise<unknown>>();

  /** Ends the task (`tasks/cancel`); a close waits for the cancels on their way. */
  function cancel(client: Client, taskId: string): Promise<void> {
    const sent: Promise<void> = cancelTask(client, taskId).finally(() => cancels.delete(sent));
    cancels.add(sent);
    return sent;
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
      return await pollTask(client, await first(), options);
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
    /** The person's answers to a task that asked (`tasks/update`), then the task followed again. */
    async resume(client: Client, answers: InputAnswers & { taskId: string }, options: CallToolOptions) {
      return followTask(client, answers.taskId, () => answeredTask(client, answers, options.signal), options);
    },
    /** Waits (a little) for the cancels still on their way, before the connections close under them. */
    async settled(): Promise<void> {
      await settledWithin(Promise.all(cancels), SETTLE_MS);
    },
  };
}

export type TaskFollower = ReturnType<typeof taskFollower>;
