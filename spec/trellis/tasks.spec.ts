import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { mcpTrellis } from '../../lib/trellis/mcp';
import type { Transport } from '@modelcontextprotocol/client';
import { acceptTasks, pollDelay, taskEndedText, taskFollower } from '../../lib/trellis/tasks';
import type { CallToolResult, ToolTask, Trellis } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';
import { eventually } from './helpers';

describe('MCP tasks (io.modelcontextprotocol/tasks) on an MCP Trellis', () => {
  let server: McpTasksFixtureServer;
  let trellis: Trellis;
  const signal = () => new AbortController().signal;

  beforeEach(async () => {
    server = await startMcpTasksServer();
    trellis = mcpTrellis({ url: server.url, logger: memoryLogger().logger });
  });
  afterEach(async () => {
    await trellis.close!();
    await server.close();
  });

  it("declares the extension, polls tasks/get until the task completes and hands back the task's result", async () => {
    const seen: ToolTask[] = [];
    const result = await trellis.callTool(
      'build_project',
      { project: 'web', steps: 2 },
      { signal: signal(), onTask: (task) => seen.push(task) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'built web' }]);
    expect(server.requests.map((r) => r.method)).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get']);
    expect(seen.map(({ status, statusMessage }) => [status, statusMessage])).toEqual([
      ['working', 'step 1 of 2'],
      ['working', 'step 2 of 2'],
      ['completed', undefined],
    ]);
    expect(new Set(seen.map((task) => task.id)).size).toBe(1);
  });

  it('fails the call with the error of a failed task', async () => {
    await expect(trellis.callTool('broken_build', {}, { signal: signal() })).rejects.toThrow(
      /task [\w-]+ failed: the compiler crashed \(-32603\)$/,
    );
  });

  it('fails the call of a task the server cancelled, with its status message', async () => {
    await expect(trellis.callTool('stopped_job', {}, { signal: signal() })).rejects.toThrow(
      /task [\w-]+ was cancelled by the server \(the operator stopped it\)$/,
    );
  });

  it("hands back a task's question with its task id, and the answers go to tasks/update, then the task is polled on", async () => {
    const asked = await trellis.callTool('ask_name', {}, { signal: signal() });
    const taskId = asked.inputRequired?.taskId ?? '';
    expect(taskId).toMatch(/^[\da-f-]{36}$/);
    expect(asked.inputRequired).toEqual({
      inputRequests: {
        name: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Please enter your name.',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
        },
      },
      taskId,
      answered: {},
    });
    const inputResponses = { name: { action: 'accept', content: { name: 'Ada' } } };
    const result = await trellis.callTool('ask_name', {}, { signal: signal(), input: { inputResponses, taskId } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada.' }]);
    expect(server.updates).toEqual([{ taskId, inputResponses }]);
    expect(server.requests.map((r) => r.method)).toEqual(['tools/call', 'tasks/get', 'tasks/update', 'tasks/get']);
  });

  it('fails the answers to a task the server no longer has, naming the task', async () => {
    const asked = await trellis.callTool('ask_name', {}, { signal: signal() });
    const taskId = asked.inputRequired?.taskId ?? '';
    server.forgetTasks();
    const input = { inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } }, taskId };
    await expect(trellis.callTool('ask_name', {}, { signal: signal(), input })).rejects.toThrow(
      `task ${taskId} did not take the person's answers: unknown task`,
    );
  });

  it('sends tasks/cancel when the call ends before its task, and close() waits for it', async () => {
    const controller = new AbortController();
    const seen: ToolTask[] = [];
    const call = trellis.callTool('endless_crawl', {}, { signal: controller.signal, onTask: (t) => seen.push(t) });
    await eventually(() => expect(server.requests.filter((r) => r.method === 'tasks/get').length).toBeGreaterThan(1));
    controller.abort(new Error('the loop ended'));
    await expect(call).rejects.toThrow('the loop ended');
    await trellis.close!();
    expect(server.cancelled).toEqual([seen[0].id]);
  });

  it('polls no faster than every 100 ms, whatever pollIntervalMs the server asks for', async () => {
    await trellis.callTool('build_project', { steps: 3, pollIntervalMs: 1 }, { signal: signal() });
    const times = server.requests.map((r) => r.at);
    const gaps = times.slice(1).map((at, i) => at - times[i]);
    expect(gaps).toHaveLength(4);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(95);
  });

  it('bounds the poll interval to 100 ms - 5 s, 1 s when the server gives none', () => {
    expect([pollDelay(1), pollDelay(250), pollDelay(60_000), pollDelay(undefined)]).toEqual([100, 250, 5000, 1000]);
  });
});

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
