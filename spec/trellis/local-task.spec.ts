import { localTrellis } from '../../lib/testing';
import type { ToolTask } from '../../lib/types';

const TASK_ID = /^[\da-f-]{36}$/;

describe("localTrellis: a tool scripted as a task (MCP's tasks extension)", () => {
  const open = () => new AbortController().signal;

  it("reports each step's status message, then completes with the handler's result", async () => {
    const seen: ToolTask[] = [];
    const trellis = localTrellis([
      { name: 'build', handler: () => 'built', task: { steps: ['compiling', 'linking'], stepMs: 1 } },
    ]);
    const result = await trellis.callTool('build', {}, { signal: open(), onTask: (task) => seen.push(task) });
    expect(result.content).toEqual([{ type: 'text', text: 'built' }]);
    expect(seen.map(({ status, statusMessage }) => [status, statusMessage])).toEqual([
      ['working', 'compiling'],
      ['working', 'linking'],
      ['completed', undefined],
    ]);
    expect(seen[0].id).toMatch(TASK_ID);
  });

  it('fails, or asks for input, with the texts of an MCP task, and the handler does not run', async () => {
    const handler = jest.fn(() => 'ran');
    const trellis = localTrellis([
      { name: 'broken', handler, task: { steps: ['compiling'], stepMs: 1, fails: 'the compiler crashed' } },
      { name: 'asks', handler, task: { input: 'Which branch?' } },
    ]);
    await expect(trellis.callTool('broken', {}, { signal: open() })).rejects.toThrow(
      /^task [\da-f-]{36} failed: the compiler crashed$/,
    );
    await expect(trellis.callTool('asks', {}, { signal: open() })).rejects.toThrow(
      /^task [\da-f-]{36} needs input from the person, which the loop cannot give to a task yet \(Which branch\?\)$/,
    );
    expect(handler).not.toHaveBeenCalled();
  });

  it('stops between steps when the call ends', async () => {
    const controller = new AbortController();
    const seen: ToolTask[] = [];
    const trellis = localTrellis([
      { name: 'crawl', handler: () => 'done', task: { steps: ['a', 'b'], stepMs: 60_000 } },
    ]);
    const call = trellis.callTool('crawl', {}, { signal: controller.signal, onTask: (task) => seen.push(task) });
    controller.abort(new Error('the loop ended'));
    await expect(call).rejects.toThrow('the loop ended');
    expect(seen.map((task) => task.statusMessage)).toEqual(['a']);
  });

  it('refuses a bad task script at start-up, naming the fix', () => {
    expect(() =>
      localTrellis([{ name: 'x', handler: () => '', task: { steps: 'compiling' as unknown as string[] } }]),
    ).toThrow(
      "it must script the tool as a task: { steps?: ['compiling', 'linking'], stepMs?: 100, fails?: 'the compiler crashed', input?: 'Which branch?' }",
    );
  });
});
