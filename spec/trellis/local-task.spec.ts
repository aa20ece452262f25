import { localTrellis } from '../../lib/testing';
import type { InputAnswers, ToolTask } from '../../lib/types';

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

  it('fails with the text of an MCP task, and the handler does not run', async () => {
    const handler = jest.fn(() => 'ran');
    const trellis = localTrellis([
      { name: 'broken', handler, task: { steps: ['compiling'], stepMs: 1, fails: 'the compiler crashed' } },
    ]);
    await expect(trellis.callTool('broken', {}, { signal: open() })).rejects.toThrow(
      /^task [\da-f-]{36} failed: the compiler crashed$/,
    );
    expect(handler).not.toHaveBeenCalled();
  });

  it('asks the person as an MCP task does, and runs the handler with the answers once they come', async () => {
    const handler = jest.fn((_args: Record<string, unknown>, { input }: { input?: InputAnswers }) =>
      JSON.stringify(input?.inputResponses),
    );
    const trellis = localTrellis([
      { name: 'asks', handler, task: { steps: ['cloning'], stepMs: 1, input: 'Which branch?' } },
    ]);
    const seen: ToolTask[] = [];
    const onTask = (task: ToolTask) => seen.push(task);
    const asked = await trellis.callTool('asks', {}, { signal: open(), onTask });
    expect(handler).not.toHaveBeenCalled();
    const taskId = asked.inputRequired?.taskId ?? '';
    expect(taskId).toMatch(TASK_ID);
    expect(asked.inputRequired?.inputRequests).toEqual({
      answer: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Which branch?',
          requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
        },
      },
    });
    const inputResponses = { answer: { action: 'accept', content: { answer: 'main' } } };
    const result = await trellis.callTool('asks', {}, { signal: open(), onTask, input: { inputResponses, taskId } });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(inputResponses) }]);
    expect(seen.map(({ id, status, statusMessage }) => [id, status, statusMessage])).toEqual([
      [taskId, 'working', 'cloning'],
      [taskId, 'input_required', 'Which branch?'],
      [taskId, 'working', 'answered'],
      [taskId, 'completed', undefined],
    ]);
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
