import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { ScriptStep } from '../../fixtures/model-server';
import { reloadConfig } from '../../lib/gateway/reload';
import { memoryLogger } from '../helpers/memory-logger';
import { javascript } from '../helpers/javascript';
import { ask, mcpRig } from '../e2e/mcp-gateway';

const KEY = 'reload-admin-key-0123456789abcdef';
const ROOT = path.join(__dirname, '..', '..');

function writeConfig(file: string, config: unknown): string {
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

describe('reloading the config file (what the CLI does on SIGHUP)', () => {
  const rig = mcpRig();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'agent-loop-reload-')), 'gateway.json');
  const started = () => ({
    upstream: { url: rig.model.url },
    trellis: { mcp: { url: rig.mcp.url } },
    totalBudgetSec: 90,
    maxTokensPerLoop: 9000,
    bindings: [
      {
        name: 'notes',
        match: { model: 'agent-*' },
        hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }],
        maxTurns: 6,
      },
    ],
    judge: { rules: [], mode: 'enforce' as const },
  });

  it("applies the settings, each binding's and the rules; names what takes a restart; loops in flight keep theirs", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const script = async (body: { messages: { role: string }[] }): Promise<ScriptStep> => {
      if (!body.messages.some((m) => m.role === 'tool')) return { toolCalls: [{ name: 'notes_open' }] };
      await held;
      return { content: 'Three notes.' };
    };
    const { logger, lines } = memoryLogger('info');
    const config = started();
    const { client, loop } = await rig.gateway(script, { ...config, logger });
    const inFlight = client.chat.completions.create(ask()).withResponse();
    while (!rig.model.requests.some((r) => r.body.messages.some((m) => m.role === 'tool')))
      await new Promise((resolve) => setTimeout(resolve, 20));

    const rules = [
      { surface: 'tool_call' as const, tool: 'notes_open', action: 'block' as const, reason: 'closed for the night' },
    ];
    const next = {
      ...config,
      totalBudgetSec: 30,
      bodyLimit: '1mb',
      bindings: [{ ...config.bindings[0], maxTurns: 1, match: { model: 'other-*' } }],
      judge: { ...config.judge, rules },
    };
    delete (next as { maxTokensPerLoop?: number }).maxTokensPerLoop;
    expect(reloadConfig(writeConfig(file, next), loop, config, logger)).toBe(true);

    expect(loop.settings.get()).toEqual({
      totalBudgetSec: 30,
      defaultMaxTurns: 6,
      maxToolCallsPerTurn: 8,
      bindings: { notes: { maxTurns: 1, toolTimeoutSec: 30 } },
    });
    expect(loop.judgeRules.get().rules).toEqual(rules);
    expect(lines.find((line) => line.message === 'agent-loop settings changed')).toEqual(
      expect.objectContaining({
        source: `SIGHUP (${file})`,
        changed: {
          totalBudgetSec: { from: 90, to: 30 },
          maxTokensPerLoop: { from: 9000, to: null },
          'bindings.notes.maxTurns': { from: 6, to: 1 },
        },
      }),
    );
    expect(
      lines.find(
        (line) =>
          line.message === 'agent-loop-gateway: SIGHUP: these options take a restart; they keep their running values',
      ),
    ).toEqual(expect.objectContaining({ file, options: ['bindings.notes', 'bodyLimit'] }));

    release();
    const { data, response } = await inFlight;
    expect(data.choices[0].message.content).toBe('Three notes.');
    expect(response.headers.get('x-agent-loop-turns')).toBe('2');
    expect(rig.toolTexts(1)).toEqual(['note ids: welcome, groceries, standup']);

    rig.model.setScript([{ toolCalls: [{ name: 'notes_open' }] }, { content: 'unreached' }]);
    const after = await client.chat.completions.create(ask()).withResponse();
    expect(after.response.headers.get('x-agent-loop-stop')).toBe('max_turns');
  });

  it.each([
    ['not JSON', '{ "upstream": ', expect.stringContaining('JSON')],
    [
      'a bad value',
      { totalBudgetSec: 0 },
      "ERR_AGENT_LOOP_OUT_OF_RANGE: agentLoop: option 'totalBudgetSec' is 0; it must be a whole number from 1 to 3600 (default 120), e.g. totalBudgetSec: 120.",
    ],
    [
      'a misspelt option',
      { totalBudgetSecs: 30 },
      expect.stringContaining(
        "ERR_AGENT_LOOP_UNKNOWN_OPTION: createGateway: unknown option 'totalBudgetSecs'. Did you mean `totalBudgetSec`?",
      ),
    ],
    [
      'a gateway key gone bad',
      { upstream: { url: 'not a url' } },
      expect.stringContaining("ERR_AGENT_LOOP_INVALID_OPTION: createGateway: option 'upstream.url'"),
    ],
  ])('keeps the running config when the file holds %s, and logs why', async (_case, change, reason) => {
    const { logger, lines } = memoryLogger('info');
    const config = started();
    const { loop } = await rig.gateway([{ content: 'hi' }], { ...config, logger });
    const before = loop.settings.get();
    const content = typeof change === 'string' ? change : { ...config, totalBudgetSec: 45, ...change };
    expect(reloadConfig(writeConfig(file, content), loop, config, logger)).toBe(false);
    expect(loop.settings.get()).toEqual(before);
    expect(lines.filter((line) => line.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'agent-loop-gateway: SIGHUP: the config file was not reloaded; the running config stays',
        file,
        reason,
      }),
    ]);
  });

  it('the CLI reloads on SIGHUP and keeps serving', async () => {
    const config = { ...started(), admin: { keyEnv: 'RELOAD_ADMIN_KEY' } };
    writeConfig(file, config);
    const child = spawn(process.execPath, [javascript('lib/gateway/cli.ts'), '--config', file, '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', RELOAD_ADMIN_KEY: KEY },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      while (!/listening on (http:\/\/\S+)/.test(stdout)) {
        if (child.exitCode !== null) throw new Error(`the CLI exited ${child.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = /listening on (http:\/\/\S+)/.exec(stdout)![1];
      const settings = () => request(url).get('/admin/api/settings').set('authorization', `Bearer ${KEY}`);
      expect((await settings()).body.defaultMaxTurns).toBe(6);
      writeConfig(file, { ...config, defaultMaxTurns: 3 });
      child.kill('SIGHUP');
      while (!stdout.includes('agent-loop-gateway: SIGHUP: config reloaded'))
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await settings()).body.defaultMaxTurns).toBe(3);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
