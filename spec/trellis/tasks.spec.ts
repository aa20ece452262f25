import type { Transport } from '@modelcontextprotocol/client';
import { taskFollower } from '../../lib/trellis/task-follower';
import { acceptTasks, taskEndedText } from '../../lib/trellis/tasks';
import type { CallToolResult } from '../../lib/types';

describe('the tasks seam and texts', () => {
  it('hands a task answer to the SDK as a complete result carrying the task, and every other message as it is', () => {
    const delivered: unknown[] = [];
    const transport = { onmessage: (message: unknown) => delivered.push(message) } as unknown as Transport;
    acceptTasks(transport);
    const plain = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [] } };
    transport.onmessage!(plain as never);
    const task = { taskId: 't1', status: 'working', createdAt: 'a', lastUpdatedAt: 'b', ttlMs: null };
    transport.onmessage!({
      jsonrpc: '2.0',
      id: 2,
      result: { ...task, resultType: 'task', _meta: { k: 'v' } },
    } as never);
    expect(delivered).toEqual([
      plain,
      {
        jsonrpc: '2.0',
        id: 2,
        result: { resultType: 'complete', content: [], _meta: { k: 'v', 'express-agent-loop/task': task } },
      },
    ]);
  });

  it('refuses a task handle it cannot read', async () => {
    const result = { content: [], _meta: { 'express-agent-loop/task': { taskId: 7 } } } as CallToolResult;
    await expect(
      taskFollower().follow(undefined as never, result, { signal: new AbortController().signal }),
    ).rejects.toThrow(/^the tool answered with a task the loop cannot read: /);
  });

  it('names how a task ended without a result', () => {
    expect(taskEndedText({ taskId: 't1', status: 'cancelled', statusMessage: 'operator stopped it' })).toBe(
      'task t1 was cancelled by the server (operator stopped it)',
    );
    expect(taskEndedText({ taskId: 't1', status: 'failed' })).toBe('task t1 failed: no error given');
    expect(taskEndedText({ taskId: 't1', status: 'input_required' })).toBe(
      'task t1 needs input from the person but asked no question',
    );
  });
});
