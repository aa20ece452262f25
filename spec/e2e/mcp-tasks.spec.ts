import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { eventually } from '../trellis/helpers';
import { ask, mcpRig } from './mcp-gateway';

const builds = { name: 'builds', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const TASK_ID = /^[\da-f-]{36}$/;

describe('MCP tasks (io.modelcontextprotocol/tasks) inside the loop, through the official openai client', () => {
  const rig = mcpRig();
  let tasks: McpTasksFixtureServer;
  const trellis = () => ({ mcp: { url: tasks.url } });
  const methods = () => tasks.requests.map((request) => request.method);

  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());

  it("hands the model a completed task's result as the call's result", async () => {
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'build_project', arguments: { project: 'web', steps: 2 } }] }, { content: 'Built.' }],
      { trellis: trellis(), bindings: [builds] },
    );
    const answer = await client.chat.completions.create(ask('build it'));
    expect(answer.choices[0].message.content).toBe('Built.');
    expect(rig.toolTexts(1)).toEqual(['built web']);
    expect(methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get']);
  });

  it('hands the model `tool error: ...` naming the failure of a failed task', async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'broken_build' }] }, { content: 'It broke.' }], {
      trellis: trellis(),
      bindings: [builds],
    });
    await client.chat.completions.create(ask('build it'));
    const [text] = rig.toolTexts(1);
    expect(text).toMatch(
      /^tool error: Trellis at .+ failed: task [\da-f-]{36} failed: the compiler crashed \(-32603\)$/,
    );
  });

  it("cancels the task at the call's deadline, and the model reads the timeout text", async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'endless_crawl' }] }, { content: 'Too slow.' }], {
      trellis: trellis(),
      bindings: [{ ...builds, toolTimeoutSec: 1 }],
    });
    await client.chat.completions.create(ask('crawl'));
    expect(rig.toolTexts(1)).toEqual(["tool error: 'endless_crawl' timed out after 1s"]);
    await eventually(() => expect(tasks.cancelled).toHaveLength(1));
    expect(tasks.cancelled[0]).toMatch(TASK_ID);
    expect(tasks.requests.find((request) => request.method === 'tasks/cancel')?.taskId).toBe(tasks.cancelled[0]);
  });

  it("gives a tool its own time with toolTimeouts: the task outlives the binding's toolTimeoutSec", async () => {
    const { client } = await rig.gateway(
      [
        { toolCalls: [{ name: 'build_project', arguments: { project: 'api', steps: 15 } }] },
        { toolCalls: [{ name: 'endless_crawl' }] },
        { content: 'Done.' },
      ],
      { trellis: trellis(), bindings: [{ ...builds, toolTimeoutSec: 1, toolTimeouts: { build_project: 60 } }] },
    );
    await client.chat.completions.create(ask('build it'));
    expect(rig.toolTexts(1)).toEqual(['built api']);
    expect(rig.toolTexts(2)).toEqual(['built api', "tool error: 'endless_crawl' timed out after 1s"]);
  });

  it("cancels the task when the loop's total budget runs out, and the budget note ends the loop", async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'endless_crawl' }] }, { content: 'never read' }], {
      trellis: trellis(),
      bindings: [builds],
      totalBudgetSec: 1,
    });
    const answer = await client.chat.completions.create(ask('crawl'));
    expect(answer.choices[0].message.content).toContain(
      '[agent-loop] Stopped before a final answer: the total time budget ran out (totalBudgetSec = 1s).',
    );
    await eventually(() => expect(tasks.cancelled).toHaveLength(1));
  });

  it('cancels the task when the client goes away', async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'endless_crawl' }] }, { content: 'never read' }], {
      trellis: trellis(),
      bindings: [builds],
    });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { ...ask('crawl'), stream: true },
      { signal: controller.signal },
    );
    const reading = (async () => {
      for await (const _ of stream);
    })().catch(() => undefined);
    await eventually(() => expect(methods()).toContain('tasks/get'));
    controller.abort();
    await reading;
    await eventually(() => expect(tasks.cancelled).toHaveLength(1));
  });

  it('cancels the tasks it polls when the gateway shuts down', async () => {
    const { client, loop } = await rig.gateway([{ toolCalls: [{ name: 'endless_crawl' }] }, { content: 'Stopped.' }], {
      trellis: trellis(),
      bindings: [builds],
      shutdownDrainSec: 1,
    });
    const answering = client.chat.completions.create(ask('crawl'));
    await eventually(() => expect(methods()).toContain('tasks/get'));
    await loop.close();
    await answering.catch(() => undefined);
    expect(tasks.cancelled).toHaveLength(1);
  });

  it('runs 50 tasks at once, each to its own result', async () => {
    const { client } = await rig.gateway(
      (body) => {
        const project = String(body.messages[0].content);
        return body.messages.some((m) => m.role === 'tool')
          ? { content: `done ${project}` }
          : { toolCalls: [{ name: 'build_project', arguments: { project, steps: 2 } }] };
      },
      { trellis: trellis(), bindings: [builds] },
    );
    const projects = Array.from({ length: 50 }, (_, i) => `p${i}`);
    const answers = await Promise.all(projects.map((project) => client.chat.completions.create(ask(project))));
    expect(answers.map((answer) => answer.choices[0].message.content)).toEqual(projects.map((p) => `done ${p}`));
    const texts = rig.model.requests.flatMap((r) =>
      r.body.messages.filter((m) => m.role === 'tool').map((m) => m.content),
    );
    expect(texts.sort()).toEqual(projects.map((p) => `built ${p}`).sort());
    expect(methods().filter((method) => method === 'tools/call')).toHaveLength(50);
    expect(methods().filter((method) => method === 'tasks/get')).toHaveLength(150);
  });
});
