import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { mcpTrellis } from '../../lib/trellis/mcp';
import { pollDelay } from '../../lib/trellis/task-follower';
import type { ToolTask, Trellis } from '../../lib/types';
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
