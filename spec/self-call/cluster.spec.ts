import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server';
import { refuseClusterWithoutSecret } from '../../lib/self-call/cluster';
import { javascript } from '../helpers/javascript';

const ROOT = path.join(__dirname, '..', '..');
const NO_SECRET =
  'ERR_AGENT_LOOP_NO_SHARED_SECRET: agentLoop: this process is a node:cluster worker and neither the option internalSecret nor the env MCP_INTERNAL_SECRET is set; ' +
  "each worker would sign its loop's turns with its own random key, and a turn that lands on another worker would not verify. " +
  'Set MCP_INTERNAL_SECRET to the same 32+ characters in every worker (e.g. the output of `openssl rand -hex 32`), or pass internalSecret.';

interface Cluster {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function startCluster(configs: unknown[], env: Record<string, string> = {}): Cluster {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-loop-cluster-'));
  const files = configs.map((config, index) => {
    const file = path.join(dir, `worker${index}.json`);
    writeFileSync(file, JSON.stringify(config));
    return file;
  });
  const { MCP_INTERNAL_SECRET: _none, ...parentEnv } = process.env;
  const child = spawn(process.execPath, [javascript('fixtures/cluster-gateway.ts'), ...files], {
    cwd: ROOT,
    env: { ...parentEnv, LOG_LEVEL: 'warn', ...env },
  });
  const run: Cluster = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.once('exit', resolve)) };
  child.stdout!.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  return run;
}

async function clusterUrl(run: Cluster): Promise<string> {
  for (;;) {
    const url = /^cluster listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(run.stdout)?.[1];
    if (url) return url;
    if (run.child.exitCode !== null) throw new Error(`the cluster exited ${run.child.exitCode}: ${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The parsed JSON log lines the workers wrote. */
const logLines = (run: Cluster) =>
  `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the gateway in two node:cluster workers on one port', () => {
  let mcp: McpFixtureServer;
  let model: ModelServer;
  let running: Cluster | undefined;
  const clock: Script = (body) =>
    body.messages.some((message) => message.role === 'tool')
      ? { content: 'It is noon.' }
      : { toolCalls: [{ name: 'clock_now' }] };
  const config = (extra: Record<string, unknown> = {}) => ({
    upstream: { url: model.url },
    trellis: { mcp: { url: mcp.url } },
    bindings: [{ name: 'clock', match: { model: '*' }, hierarchy: 'clock_now' }],
    ...extra,
  });
  const ask = async (url: string) => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'client-key', maxRetries: 0 });
    return client.chat.completions
      .create({ model: 'any', messages: [{ role: 'user', content: 'time?' }] })
      .withResponse();
  };

  beforeEach(async () => {
    mcp = await startMcpServer();
    model = await startModelServer(clock);
  });
  afterEach(async () => {
    if (running?.child.exitCode === null) {
      running.child.kill();
      await running.exited;
    }
    running = undefined;
    await Promise.all([mcp.close(), model.close()]);
  });

  it('refuses to start a worker without internalSecret or MCP_INTERNAL_SECRET, naming the fix', async () => {
    running = startCluster([config(), config()]);
    expect(await running.exited).toBe(2);
    expect(running.stderr).toBe(`${NO_SECRET}\n${NO_SECRET}\n`);
  });

  it('runs every loop to its answer with MCP_INTERNAL_SECRET shared, whichever worker takes each turn', async () => {
    running = startCluster([config(), config()], { MCP_INTERNAL_SECRET: 'a shared secret of at least 32 characters' });
    const url = await clusterUrl(running);
    for (let i = 0; i < 4; i++) {
      const { data, response } = await ask(url);
      expect(data.choices[0].message.content).toBe('It is noon.');
      expect(response.headers.get('x-agent-loop-turns')).toBe('2');
    }
    expect(model.requests).toHaveLength(8);
    expect(logLines(running)).toEqual([]);
  });

  it('never recurses when a turn lands on a worker whose key differs: the marker fails there and no loop starts', async () => {
    const secret = (index: number) => `worker ${index} has a secret of its own, 32+ chars`;
    // In process (the default) a turn never leaves its worker; over a socket it lands on whichever worker accepts it.
    const worker = (index: number) => config({ internalSecret: secret(index), selfCall: 'socket' });
    running = startCluster([worker(0), worker(1)]);
    const url = await clusterUrl(running);
    for (let i = 0; i < 4; i++) {
      const { data } = await ask(url);
      expect(data.choices[0].message.content).toBe('It is noon.');
    }
    // Each loop makes two model calls whichever worker takes them; a recursing loop would make many more.
    expect(model.requests).toHaveLength(8);
    const forged = logLines(running).filter((line) =>
      String(line.message).startsWith('agent-loop ignored an X-MCP-Internal marker'),
    );
    expect(forged.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('refuseClusterWithoutSecret', () => {
  it('lets a worker with internalSecret, and any process that is not a worker, start', () => {
    expect(() => refuseClusterWithoutSecret('x'.repeat(32), true)).not.toThrow();
    expect(() => refuseClusterWithoutSecret(undefined, false)).not.toThrow();
    expect(() => refuseClusterWithoutSecret(undefined, true)).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_NO_SHARED_SECRET' }),
    );
  });
});
