import request from 'supertest';
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { postRaw } from '../helpers/listen';
import { eventually } from '../trellis/helpers';
import { ask, mcpRig } from './mcp-gateway';

const KEY = 'admin-key-tasks-0123456789';
process.env.TASKS_ADMIN_KEY = KEY;
const builds = { name: 'builds', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const COMMENT = /^: task build_project [\da-f-]{36} (.*)$/;

describe("a running MCP task's status, as the client and the admin API see it", () => {
  const rig = mcpRig();
  let tasks: McpTasksFixtureServer;
  const trellis = () => ({ mcp: { url: tasks.url } });

  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());

  const script = [
    { toolCalls: [{ name: 'build_project', arguments: { project: 'web', steps: 2 } }] },
    { content: 'Built.' },
  ];

  it('writes each new status of a task as an SSE comment on a streaming chat completion', async () => {
    const { url } = await rig.gateway(script, { trellis: trellis(), bindings: [builds] });
    const { status, body } = await postRaw(url, { ...ask('build it'), stream: true });
    expect(status).toBe(200);
    const comments = body
      .split('\n')
      .map((line) => COMMENT.exec(line)?.[1])
      .filter((line) => line !== undefined);
    expect(comments).toEqual(['working: step 1 of 2', 'working: step 2 of 2', 'completed']);
  });

  it('leaves the stream whole for the official client', async () => {
    const { client } = await rig.gateway(script, { trellis: trellis(), bindings: [builds] });
    const stream = await client.chat.completions.create({ ...ask('build it'), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Built.');
    expect(rig.toolTexts(1)).toEqual(['built web']);
  });

  it.each([
    [false, { status: 'working' }],
    [true, { status: 'working', statusMessage: 'crawling' }],
  ])("shows the running call's task in the admin loop list (captureContent %s)", async (captureContent, shown) => {
    const gateway = await rig.gateway([{ toolCalls: [{ name: 'endless_crawl' }] }, { content: 'Stopped.' }], {
      trellis: trellis(),
      bindings: [{ ...builds, toolTimeoutSec: 2 }],
      admin: { keyEnv: 'TASKS_ADMIN_KEY' },
      telemetry: { captureContent },
    });
    const answering = gateway.client.chat.completions.create(ask('crawl'));
    let running: { tool: string; task?: Record<string, unknown> }[] = [];
    await eventually(async () => {
      const { body } = await request(gateway.url).get('/admin/api/loops').set('authorization', `Bearer ${KEY}`);
      running = body.inFlight[0]?.running ?? [];
      expect(running[0]?.task).toBeDefined();
    });
    expect(running).toEqual([
      expect.objectContaining({ tool: 'endless_crawl', task: { id: expect.any(String), ...shown } }),
    ]);
    await answering;
  });
});
