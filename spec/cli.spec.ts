import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { startMcpServer, type McpFixtureServer } from '../fixtures/mcp-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';

const ROOT = path.join(__dirname, '..');
const USAGE = 'usage: agent-loop-gateway --config gateway.json [--port N] [--host HOST]';

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function cli(...args: string[]): Run {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'lib/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
  const run: Run = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.once('exit', resolve)) };
  child.stdout!.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  return run;
}

function configFile(config: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'agent-loop-cli-')), 'gateway.json');
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

async function listeningUrl(run: Run): Promise<string> {
  for (;;) {
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(run.stdout)?.[1];
    if (url) return url;
    if (run.child.exitCode !== null) throw new Error(`the CLI exited ${run.child.exitCode}: ${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('agent-loop-gateway (the CLI)', () => {
  let running: Run | undefined;
  afterEach(async () => {
    if (running?.child.exitCode === null) {
      running.child.kill();
      await running.exited;
    }
    running = undefined;
  });

  it('starts from a config file, prints where it listens, and serves the loop', async () => {
    const mcp: McpFixtureServer = await startMcpServer();
    const model: ModelServer = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is noon.' }]);
    try {
      const config = { upstream: { url: model.url }, trellis: { mcp: { url: mcp.url } }, bindings: [{ name: 'clock', match: { model: '*' }, hierarchy: 'clock_now' }] };
      running = cli('--config', configFile(config), '--port', '0');
      const url = await listeningUrl(running);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'client-key', maxRetries: 0 });
      const { data, response } = await client.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'time?' }] }).withResponse();
      expect(data.choices[0].message.content).toBe('It is noon.');
      expect(response.headers.get('x-agent-loop-turns')).toBe('2');
      expect(mcp.calls).toEqual([{ name: 'clock_now', args: {} }]);
    } finally {
      await Promise.all([mcp.close(), model.close()]);
    }
  });

  it.each([
    [
      'a config with a bad option',
      () => ['--config', configFile({ upstream: { url: 'http://127.0.0.1:9/v1' }, defaultMaxTurns: 99 })],
      "ERR_AGENT_LOOP_OUT_OF_RANGE: agentLoop: option 'defaultMaxTurns' is 99; it must be a whole number from 1 to 50 (default 6), e.g. defaultMaxTurns: 6.\n",
    ],
    [
      'a config without an upstream',
      () => ['--config', configFile({})],
      "ERR_AGENT_LOOP_INVALID_OPTION: createGateway: option 'upstream' is undefined; it must be { url: 'http://127.0.0.1:11434/v1', apiKeyEnv?: 'OPENAI_API_KEY' }.\n",
    ],
    [
      'a port that is not a number',
      () => ['--config', configFile({ upstream: { url: 'http://127.0.0.1:9/v1' } }), '--port', 'abc'],
      'ERR_AGENT_LOOP_OUT_OF_RANGE: createGateway: option \'port\' is "abc"; it must be a port number from 0 to 65535, e.g. 3000.\n',
    ],
    ['no --config', () => ['--port', '0'], `agent-loop-gateway: --config is required\n${USAGE}\n`],
  ])('exits 2 on %s with the message and no stack trace', async (_case, args, message) => {
    running = cli(...args());
    expect(await running.exited).toBe(2);
    expect(running.stderr).toBe(message);
    expect(running.stderr.split('\n').some((line) => line.startsWith('    at '))).toBe(false);
  });

  it("exits 2 on an unknown flag with node's reason and the usage", async () => {
    running = cli('--confg', 'x.json');
    expect(await running.exited).toBe(2);
    expect(running.stderr).toMatch(/^agent-loop-gateway: Unknown option '--confg'.*\nusage: /);
    expect(running.stderr.endsWith(`${USAGE}\n`)).toBe(true);
  });

  it('exits 2 with the reason when the port is taken (Express 5 calls back with the error)', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      running = cli('--config', configFile({ upstream: { url: 'http://127.0.0.1:9/v1' } }), '--port', String(port));
      expect(await running.exited).toBe(2);
      expect(running.stderr).toBe(`agent-loop-gateway: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('exits 2 naming a config file that is not JSON', async () => {
    const file = configFile('{ "upstream": ');
    running = cli('--config', file);
    expect(await running.exited).toBe(2);
    expect(running.stderr).toMatch(new RegExp(`^agent-loop-gateway: cannot read --config ${file}: .*JSON.*\\n$`));
  });
});
