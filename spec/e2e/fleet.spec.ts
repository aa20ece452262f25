import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { z } from 'zod';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server';
import { assistantTurns } from '../../lib/testing/wire';
import { cliWith, configFile, listeningUrl, stopCli, type CliRun } from '../helpers/cli-gateway';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../trellis/helpers';

/**
 * A fleet: three processes of the gateway CLI on one real redis-server, and a client that goes round them. The
 * processes are shared by the cases, which run in order (the late replica joins after the settings changed).
 */
const ADMIN_KEY = 'fleet-admin-key-0123456789';
const SECRET = 'fleet-internal-secret-0123456789abcdef';
const REPLAYED = "tool error: the approval of 'notes_delete' was already answered; the call does not run again";
/** Polls for what the fleet promises within a second or five: generous bounds, this machine is loaded. */
const FLEET_WAIT_MS = 30_000;
/** A case's bound: three processes and hundreds of loops on a machine shared with other work. */
const CASE_MS = 180_000;
jest.setTimeout(CASE_MS);

interface Replica {
  name: string;
  run: CliRun;
  url: string;
}

let redis: RedisServer;
let mcp: McpFixtureServer;
let model: ModelServer;
let release: () => void = () => undefined;
let held = new Promise<void>((resolve) => (release = resolve));
const replicas: Replica[] = [];
const others: CliRun[] = [];

const userText = (body: Parameters<Script>[0]) => String(body.messages.find((m) => m.role === 'user')?.content ?? '');

const script: Script = async (body) => {
  const text = userText(body);
  const turn = assistantTurns(body.messages);
  if (text === 'delete groceries')
    return turn === 0
      ? { content: 'On it.', toolCalls: [{ id: 'c_del', name: 'notes_delete', arguments: { id: 'groceries' } }] }
      : { content: 'Done.' };
  if (text === 'hold') {
    await held;
    return { content: 'held' };
  }
  if (text === 'two turns') return turn === 0 ? { toolCalls: [{ name: 'notes_open' }] } : { content: 'ok' };
  if (text === 'slow') return turn === 0 ? { toolCalls: [{ name: 'notes_open' }], delayMs: 100 } : { content: 'ok' };
  return { content: 'ok' };
};

function fleetConfig(name: string, storeUrl: string) {
  return {
    upstream: { url: model.url },
    internalSecret: SECRET,
    store: { url: storeUrl },
    replicaName: name,
    admin: { keyEnv: 'FLEET_ADMIN_KEY' },
    trellis: { mcp: { url: mcp.url } },
    bindings: [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: ['notes_open', 'notes_delete'] }],
    judge: {
      rules: [{ surface: 'tool_call', when: { annotation: 'destructiveHint' }, action: 'ask', reason: 'it deletes' }],
    },
  };
}

async function startReplica(name: string, storeUrl = redis.url): Promise<Replica> {
  const run = cliWith(
    { FLEET_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: 'info' },
    '--config',
    configFile(fleetConfig(name, storeUrl)),
    '--port',
    '0',
  );
  return { name, run, url: await listeningUrl(run) };
}

const client = (replica: Replica, key = 'client-key') =>
  new OpenAI({ baseURL: `${replica.url}/v1`, apiKey: key, maxRetries: 0 });

/** The fields of the admin API's answers these cases read. */
interface AdminReply {
  defaultMaxTurns?: number;
  maxToolCallsPerTurn?: number;
  keyBudget?: { tokens: number; windowSec: number };
  rules?: unknown[];
  inFlight?: { replica: string }[];
  keys?: { key: string; spent: number }[];
}

async function admin(replica: Replica, method: string, path: string, body?: unknown): Promise<AdminReply> {
  const response = await fetch(`${replica.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as AdminReply;
}

const ask = (replica: Replica, content: string, key?: string) =>
  client(replica, key).chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content }] });

const keyOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

beforeAll(async () => {
  [redis, mcp, model] = await Promise.all([startRedis(), startMcpServer(), startModelServer(script)]);
  mcp.setTool({
    name: 'notes_open',
    description: 'Open the notebook.',
    annotations: { readOnlyHint: true },
    handler: () => ({ content: [{ type: 'text', text: 'notes: groceries' }] }),
  });
  mcp.setTool({
    name: 'notes_delete',
    description: 'Delete a note.',
    args: { id: z.string() },
    annotations: { destructiveHint: true },
    handler: ({ id }) => ({ content: [{ type: 'text', text: `deleted ${String(id)}` }] }),
  });
  replicas.push(...(await Promise.all([startReplica('replica-a'), startReplica('replica-b')])));
}, CASE_MS);

afterAll(async () => {
  release();
  await Promise.all([...replicas.map((replica) => stopCli(replica.run)), ...others.map(stopCli)]);
  await Promise.all([redis?.stop(), mcp?.close(), model?.close()]);
}, CASE_MS);

describe('a fleet of three gateway processes on one Redis behaves as one', () => {
  it('refuses an approval answer replayed on another replica: the call ran once', async () => {
    const [a, b] = replicas;
    const approve = {
      type: 'function' as const,
      function: { name: 'approve_tool_call', parameters: { type: 'object', properties: {} } },
    };
    const question = { role: 'user' as const, content: 'delete groceries' };
    const first = await client(a).chat.completions.create({ model: 'agent-1', messages: [question], tools: [approve] });
    const handed = first.choices[0].message;
    expect(handed.tool_calls?.map((call) => (call as { function: { name: string } }).function.name)).toEqual([
      'approve_tool_call',
    ]);
    const answering = {
      model: 'agent-1',
      messages: [
        question,
        handed as OpenAI.ChatCompletionMessageParam,
        { role: 'tool' as const, tool_call_id: handed.tool_calls![0].id, content: '{"approved":true}' },
      ],
      tools: [approve],
    };

    expect((await client(a).chat.completions.create(answering)).choices[0].message.content).toBe('Done.');
    expect((await client(b).chat.completions.create(answering)).choices[0].message.content).toBe('Done.');

    expect(mcp.calls.filter((call) => call.name === 'notes_delete')).toHaveLength(1);
    const toolTexts = model.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(toolTexts).toEqual([REPLAYED]);
  });

  it('applies a settings change and new judge rules made on one replica on the others', async () => {
    const [a, b] = replicas;
    await admin(b, 'PATCH', '/settings', { defaultMaxTurns: 3 });
    const rules = [{ surface: 'tool_call', tool: 'notes_delete', action: 'block', reason: 'no deleting in the fleet' }];
    await admin(a, 'PUT', '/judge/rules', { rules });

    await eventually(async () => expect((await admin(a, 'GET', '/settings')).defaultMaxTurns).toBe(3), FLEET_WAIT_MS);
    await eventually(
      async () => expect((await admin(b, 'GET', '/judge/rules')).rules).toEqual([expect.objectContaining(rules[0])]),
      FLEET_WAIT_MS,
    );
  });

  it("starts a late replica with the fleet's settings and rules, and says so once", async () => {
    const c = await startReplica('replica-c');
    replicas.push(c);

    await eventually(() => expect(c.run.stdout).toContain('"message":"agent-loop settings from the store"'));
    expect((await admin(c, 'GET', '/settings')).defaultMaxTurns).toBe(3);
    expect((await admin(c, 'GET', '/judge/rules')).rules).toEqual([
      expect.objectContaining({ tool: 'notes_delete', action: 'block', reason: 'no deleting in the fleet' }),
    ]);
    expect(c.run.stdout.split('agent-loop settings from the store')).toHaveLength(2);
  });

  it("lists every replica's running loops on any replica, each with its replica", async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const asked = replicas.map((replica) => ask(replica, 'hold'));
    try {
      for (const replica of replicas)
        await eventually(async () => {
          const { inFlight } = await admin(replica, 'GET', '/loops');
          expect(inFlight!.map((loop) => loop.replica).sort()).toEqual(['replica-a', 'replica-b', 'replica-c']);
        }, FLEET_WAIT_MS);
    } finally {
      release();
    }
    expect((await Promise.all(asked)).map((answer) => answer.choices[0].message.content)).toEqual([
      'held',
      'held',
      'held',
    ]);
  });

  it("sums one key's tokens across the replicas: spent on two, refused on the third with 429", async () => {
    const [a, b, c] = replicas;
    await admin(a, 'PATCH', '/settings', { keyBudget: { tokens: 40, windowSec: 2678400 } });
    for (const replica of replicas)
      await eventually(
        async () =>
          expect((await admin(replica, 'GET', '/settings')).keyBudget).toEqual({ tokens: 40, windowSec: 2678400 }),
        FLEET_WAIT_MS,
      );
    for (const replica of [a, b, c]) await ask(replica, 'one turn', 'budget-key');

    const refused = await fetch(`${a.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer budget-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent-1', messages: [{ role: 'user', content: 'one more' }] }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-agent-loop-stop')).toBe('key-budget');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({
      error: expect.objectContaining({ type: 'tokens', code: 'rate_limit_exceeded' }),
    });
    const { keys } = await admin(b, 'GET', '/key-budget');
    expect(keys).toContainEqual(expect.objectContaining({ key: keyOf('budget-key'), spent: 45 }));
  });

  it('sums the usage of 60 loops run in parallel across the replicas exactly', async () => {
    await admin(replicas[1], 'PATCH', '/settings', { keyBudget: { tokens: 1_000_000, windowSec: 2678400 } });
    for (const replica of replicas)
      await eventually(
        async () => expect((await admin(replica, 'GET', '/settings')).keyBudget?.tokens).toBe(1_000_000),
        FLEET_WAIT_MS,
      );
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => ask(replicas[i % 3], 'two turns', 'parallel-key')),
    );

    expect(answers.map((answer) => answer.usage?.total_tokens)).toEqual(Array(60).fill(30));
    const { keys } = await admin(replicas[2], 'GET', '/key-budget');
    expect(keys).toContainEqual(expect.objectContaining({ key: keyOf('parallel-key'), spent: 60 * 30 }));
  });

  it('answers every one of 150 loops while Redis is stopped and started again; no replica exits', async () => {
    const before = model.requests.length;
    const loops = Array.from({ length: 150 }, (_, i) =>
      ask(replicas[i % 3], 'slow', `restart-key-${i % 5}`).then(
        (answer) => answer.choices[0].message.content,
        (error: Error) => `failed: ${error.message}`,
      ),
    );
    await eventually(() => expect(model.requests.length).toBeGreaterThan(before + 30));
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await redis.start();

    expect(await Promise.all(loops)).toEqual(Array(150).fill('ok'));
    expect(replicas.some(({ run }) => run.stdout.includes('agent-loop store unreachable'))).toBe(true);
    for (const { run } of replicas) {
      expect(run.child.exitCode).toBeNull();
      expect(run.stdout + run.stderr).not.toMatch(/unhandled/i);
    }
    for (const replica of replicas)
      await eventually(
        async () => expect(await (await fetch(`${replica.url}/readyz`)).json()).toEqual({ ok: true, down: {} }),
        FLEET_WAIT_MS,
      );
  });
});

describe('a gateway whose Redis is down at start', () => {
  it('starts and serves, /readyz 503 naming the store, /healthz 200; with Redis back, shares again', async () => {
    const late = await startRedis();
    await late.stop();
    const [d, e] = await Promise.all([startReplica('replica-d', late.url), startReplica('replica-e', late.url)]);
    others.push(d.run, e.run);
    try {
      expect((await ask(d, 'one turn')).choices[0].message.content).toBe('ok');
      const ready = await fetch(`${d.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { down: unknown }).down).toEqual({
        store: expect.stringMatching(/^redis:\/\/127\.0\.0\.1:\d+: /),
      });
      const live = await fetch(`${d.url}/healthz`);
      expect(live.status).toBe(200);

      await late.start();
      await eventually(async () => expect((await fetch(`${d.url}/readyz`)).status).toBe(200), FLEET_WAIT_MS);
      await eventually(async () => expect((await fetch(`${e.url}/readyz`)).status).toBe(200), FLEET_WAIT_MS);
      await admin(d, 'PATCH', '/settings', { maxToolCallsPerTurn: 5 });
      await eventually(
        async () => expect((await admin(e, 'GET', '/settings')).maxToolCallsPerTurn).toBe(5),
        FLEET_WAIT_MS,
      );
    } finally {
      await Promise.all([stopCli(d.run), stopCli(e.run)]);
      await late.stop();
    }
  });
});
