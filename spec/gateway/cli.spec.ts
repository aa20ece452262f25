import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server';
import { javascript } from '../helpers/javascript';
import { cliWith, configFile, listeningUrl, type CliRun } from '../helpers/cli-gateway';
import { postRaw } from '../helpers/listen';
import { eventually } from '../trellis/helpers';

const ROOT = path.join(__dirname, '..', '..');
const USAGE = 'usage: agent-loop-gateway --config gateway.json [--port N] [--host HOST]';

const STDIO_SERVER = path.join(ROOT, 'fixtures/mcp-stdio-server.ts');
const stdioTrellis = { mcp: { command: process.execPath, args: [javascript(STDIO_SERVER)] } };
const SHUTDOWN_NOTE = '[agent-loop] Stopped before a final answer: the gateway is shutting down.';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const cli = (...args: string[]): CliRun => cliWith({}, ...args);

describe('agent-loop-gateway (the CLI)', () => {
  let running: CliRun | undefined;
  afterEach(async () => {
    if (running?.child.exitCode === null) {
      running.child.kill();
      await running.exited;
    }
    running = undefined;
  });

  it('starts from a config file, prints where it listens, and serves the loop, /metrics and /readyz', async () => {
    const mcp: McpFixtureServer = await startMcpServer();
    const model: ModelServer = await startModelServer([
      { toolCalls: [{ name: 'clock_now' }] },
      { content: 'It is noon.' },
    ]);
    try {
      const config = {
        upstream: { url: model.url },
        trellis: { mcp: { url: mcp.url } },
        bindings: [{ name: 'clock', match: { model: '*' }, hierarchy: 'clock_now' }],
      };
      running = cli('--config', configFile(config), '--port', '0');
      const url = await listeningUrl(running);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'client-key', maxRetries: 0 });
      const { data, response } = await client.chat.completions
        .create({ model: 'any', messages: [{ role: 'user', content: 'time?' }] })
        .withResponse();
      expect(data.choices[0].message.content).toBe('It is noon.');
      expect(response.headers.get('x-agent-loop-turns')).toBe('2');
      expect(mcp.calls).toEqual([{ name: 'clock_now', args: {} }]);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('agent_loop_loops_total{binding="clock",wire="chat",stop="final"} 1\n');
      expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ ok: true, down: {} });
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
      'an upstream.apiKeyEnv that is not set',
      () => [
        '--config',
        configFile({
          upstream: { url: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_CLI_UNSET_UPSTREAM_KEY' },
          clientKeys: ['client-key-0123456789abcdef'],
        }),
      ],
      "ERR_AGENT_LOOP_NO_UPSTREAM_KEY: createGateway: option 'upstream.apiKeyEnv' names TEST_CLI_UNSET_UPSTREAM_KEY, which is not set; set it to the upstream's API key (e.g. export TEST_CLI_UNSET_UPSTREAM_KEY=sk-...), or remove apiKeyEnv for an upstream that takes no key.\n",
    ],
    [
      'a port that is not a number',
      () => ['--config', configFile({ upstream: { url: 'http://127.0.0.1:9/v1' } }), '--port', 'abc'],
      'ERR_AGENT_LOOP_OUT_OF_RANGE: createGateway: option \'port\' is "abc"; it must be a port number from 0 to 65535, e.g. 3000.\n',
    ],
    ['no --config', () => ['--port', '0'], `agent-loop-gateway: --config is required\n${USAGE}\n`],
    ...['null', '[]', '"gateway"'].map((json) => [
      `a config file holding ${json}`,
      () => ['--config', configFile(json)],
      `agent-loop-gateway: --config <file> holds ${json}; it must hold a JSON object, e.g. { "upstream": { "url": "http://127.0.0.1:11434/v1" }, "bindings": [] }\n`,
    ]),
  ] as [string, () => string[], string][])(
    'exits 2 on %s with the message and no stack trace',
    async (_case, args, message) => {
      const argv = args();
      running = cli(...argv);
      expect(await running.exited).toBe(2);
      expect(running.stderr).toBe(message.replace('<file>', argv[1]));
      expect(running.stderr.split('\n').some((line) => line.startsWith('    at '))).toBe(false);
    },
  );

  it('prints an IPv6 host in brackets, as a URL has it', async () => {
    const probe = net.createServer();
    const ipv6 = await new Promise<boolean>((resolve) =>
      probe.once('error', () => resolve(false)).listen(0, '::1', () => probe.close(() => resolve(true))),
    );
    if (!ipv6) return; // no IPv6 loopback on this machine
    running = cli(
      '--config',
      configFile({ upstream: { url: 'http://127.0.0.1:9/v1' } }),
      '--port',
      '0',
      '--host',
      '::1',
    );
    await eventually(() => expect(running!.stdout).toMatch(/^listening on http:\/\/\[::1\]:\d+\n/));
  });

  it("takes the port from --port, else PORT, else the config file's port", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      running = cliWith({ PORT: '0' }, '--config', configFile({ upstream: { url: 'http://127.0.0.1:9/v1' }, port }));
      expect(await listeningUrl(running)).not.toBe(`http://127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('prints the usage and exits 0 on --help', async () => {
    running = cli('--help');
    expect(await running.exited).toBe(0);
    expect(running.stdout).toBe(
      `${USAGE}\nThe config file (JSON) holds upstream: { url, apiKeyEnv?, routes? }, clientKeys or clientKeysEnv, and the options of agentLoop; see gateway.example.json.\n`,
    );
    expect(running.stderr).toBe('');
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
      expect(running.stderr).toBe(
        `agent-loop-gateway: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}; another process listens there: stop it or choose another port, e.g. --port ${port + 1}\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('exits 2 on a config file that is not JSON, with the coded error naming line, column and fix', async () => {
    const file = configFile('{\n  "upstream": { "url": "http://127.0.0.1:9/v1" },\n}\n');
    running = cli('--config', file);
    expect(await running.exited).toBe(2);
    expect(running.stderr).toBe(
      `ERR_AGENT_LOOP_CONFIG_NOT_JSON: the config file ${file} is not JSON at line 3, column 1 (Expected double-quoted property name); ` +
        'fix it there: JSON has its keys and strings in double quotes, no comments and no comma after the last entry, e.g. { "upstream": { "url": "http://127.0.0.1:11434/v1" }, "bindings": [] }\n',
    );
  });

  it('exits 2 naming a config file it cannot read, the reason and the fix', async () => {
    const file = path.join(tmpdir(), 'agent-loop-no-such-config.json');
    running = cli('--config', file);
    expect(await running.exited).toBe(2);
    expect(running.stderr).toBe(
      `agent-loop-gateway: cannot read --config ${file}: ENOENT: no such file or directory, open '${file}'; ` +
        `give the path of your JSON config, absolute or from ${process.cwd()}, or start from the example: --config node_modules/express-agent-loop/gateway.example.json\n`,
    );
    running = cli('--config', tmpdir());
    expect(await running.exited).toBe(2);
    expect(running.stderr).toBe(
      `agent-loop-gateway: cannot read --config ${tmpdir()}: EISDIR: illegal operation on a directory, read; --config takes the JSON file itself, e.g. --config gateway.json\n`,
    );
  });

  describe('on SIGTERM or SIGINT', () => {
    let model: ModelServer;
    let mcp: McpFixtureServer;
    beforeEach(async () => {
      mcp = await startMcpServer();
    });
    afterEach(async () => {
      await Promise.all([mcp.close(), model?.close()]);
    });

    /** Turn 1 asks for the stdio Trellis' `pid` tool; turn 2 answers after `secondTurnMs`. */
    const pidThenAnswer =
      (secondTurnMs: number): Script =>
      (body) =>
        body.messages.some((message) => message.role === 'tool')
          ? { content: 'Done.', delayMs: secondTurnMs }
          : { content: 'Looking.', toolCalls: [{ name: 'pid' }] };

    async function gatewayMidLoop(secondTurnMs: number, extra: Record<string, unknown> = {}) {
      model = await startModelServer(pidThenAnswer(secondTurnMs));
      const config = {
        upstream: { url: model.url },
        trellis: stdioTrellis,
        bindings: [{ name: 'pid', match: { model: '*' }, hierarchy: 'pid' }],
        ...extra,
      };
      running = cli('--config', configFile(config), '--port', '0');
      const url = await listeningUrl(running);
      const answer = postRaw(url, { model: 'any', messages: [{ role: 'user', content: 'pid?' }] });
      await eventually(() => expect(model.requests).toHaveLength(2), 20_000);
      const trellisPid = Number(model.requests[1].body.messages.find((message) => message.role === 'tool')!.content);
      expect(alive(trellisPid)).toBe(true);
      return { answer, trellisPid, url };
    }

    /** Whether a new connection to `url`'s port is accepted. */
    const accepts = (url: string) =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => {
          resolve(true);
          socket.destroy();
        });
        socket.once('error', () => resolve(false));
      });

    it.each([
      ['stops accepting at once: in-process turns need no listener', {}, false],
      [
        "keeps accepting until the drain ends with selfCall: 'socket': the turns come in through the listener",
        { selfCall: 'socket' },
        true,
      ],
    ])(
      'on SIGTERM %s, and the loop in flight finishes',
      async (_name, extra, accepted) => {
        const { answer, url } = await gatewayMidLoop(1500, extra);
        running!.child.kill('SIGTERM');
        await eventually(() => expect(running!.stdout).toContain('draining in-flight loops'));

        expect(await accepts(url)).toBe(accepted);
        const { status, body } = await answer;
        expect(status).toBe(200);
        expect(JSON.parse(body).choices[0].message.content).toBe('Looking.\n\nDone.');
        expect(await running!.exited).toBe(0);
      },
      30_000,
    );

    it.each(['SIGTERM', 'SIGINT'] as const)(
      'on %s lets the loop in flight finish, closes the stdio Trellis and exits 0',
      async (signal) => {
        const { answer, trellisPid } = await gatewayMidLoop(800);
        running!.child.kill(signal);

        const { status, headers, body } = await answer;
        expect(status).toBe(200);
        expect(headers['x-agent-loop-stop']).toBe('final');
        expect(JSON.parse(body).choices[0].message.content).toBe('Looking.\n\nDone.');
        expect(await running!.exited).toBe(0);
        expect(running!.stdout).toContain(`agent-loop-gateway: ${signal}: draining in-flight loops, then exiting\n`);
        await eventually(() => expect(alive(trellisPid)).toBe(false));
      },
      30_000,
    );

    it.each([
      ['in-process turns (the default)', {}],
      ["selfCall: 'socket'", { selfCall: 'socket' }],
    ])(
      'on SIGTERM between turns ends each of 20 concurrent 5-turn loops with its final answer, with %s',
      async (_name, extra) => {
        // Every loop's first tool call waits at the gate; the gate lets one through every 2 ms and SIGTERM comes halfway,
        // so that loops send their next turn on their pooled connection just as the signal arrives.
        const waiting: (() => void)[] = [];
        mcp.setTool({
          name: 'gate',
          description: 'Waits for the test.',
          handler: () =>
            new Promise((resolve) => waiting.push(() => resolve({ content: [{ type: 'text', text: 'open' }] }))),
        });
        const toolTurns = (body: { messages: { role: string }[] }) =>
          body.messages.filter((message) => message.role === 'tool').length;
        model = await startModelServer((body) =>
          toolTurns(body) < 4
            ? { toolCalls: [{ name: toolTurns(body) === 0 ? 'gate' : 'clock_now' }] }
            : { content: 'Done.' },
        );
        const config = {
          upstream: { url: model.url },
          trellis: { mcp: { url: mcp.url } },
          bindings: [{ name: 'gated', match: { model: '*' }, hierarchy: ['gate', 'clock_now'] }],
          ...extra,
        };
        running = cli('--config', configFile(config), '--port', '0');
        const url = await listeningUrl(running);
        const answers = Array.from({ length: 20 }, () =>
          postRaw(url, { model: 'any', messages: [{ role: 'user', content: 'time?' }] }),
        );
        await eventually(() => expect(waiting).toHaveLength(20), 20_000);
        waiting.forEach((release, i) => setTimeout(release, i * 2));
        await new Promise((resolve) => setTimeout(resolve, 20));
        running!.child.kill('SIGTERM');

        const ends = (await Promise.all(answers)).map(
          ({ status, headers, body }) =>
            `${status} ${headers['x-agent-loop-stop']} ${JSON.parse(body).choices[0].message.content}`,
        );
        expect(ends).toEqual(Array(20).fill('200 final Done.'));
        expect(await running!.exited).toBe(0);
      },
      60_000,
    );

    it('ends a loop still running when shutdownDrainSec runs out with the shutdown note, HTTP 200, and exits 0', async () => {
      const { answer, trellisPid } = await gatewayMidLoop(60_000, { shutdownDrainSec: 1 });
      running!.child.kill('SIGTERM');

      const { status, headers, body } = await answer;
      expect(status).toBe(200);
      expect(headers['x-agent-loop-stop']).toBe('shutdown');
      expect(JSON.parse(body).choices[0].message.content).toBe(`Looking.\n\n${SHUTDOWN_NOTE}`);
      expect(await running!.exited).toBe(0);
      const logged = running!.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      expect(logged).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message: 'agent-loop drain ran out; in-flight loops ended with the shutdown note',
          ended: 1,
        }),
      );
      await eventually(() => expect(alive(trellisPid)).toBe(false));
    }, 30_000);
  });
});
