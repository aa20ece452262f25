import request from 'supertest';
import { localTrellis } from '../../lib/trellis/local';
import type { Judge, JudgeInput, Verdict } from '../../lib/types';
import type { AgentLoopOptions } from '../../lib';
import { byTurn, startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import { buildGateway } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';

interface Ran {
  tool: string;
  args: Record<string, unknown>;
}

const VAULT_TEXT = 'key=sk-live0123456789abcdefXYZ card=4111 1111 1111 1111 owner=ada';

function recordingTrellis(ran: Ran[]) {
  const record = (tool: string, text: (args: Record<string, unknown>) => string) => (args: Record<string, unknown>) => {
    ran.push({ tool, args });
    return text(args);
  };
  return localTrellis([
    { name: 'files_open', handler: record('files_open', () => 'opened /srv/docs') },
    { name: 'files_read', handler: record('files_read', (args) => `contents of ${String(args.path)}`) },
    { name: 'shell', handler: record('shell', (args) => `ran: ${String(args.cmd)}${args.dryRun ? ' (dry run)' : ''}`) },
    { name: 'vault', handler: record('vault', () => VAULT_TEXT) },
  ]);
}

const binding = {
  name: 'files',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'files_open', children: ['files_read'] }, 'shell', 'vault'],
};
const ask = { model: 'agent-1', messages: [{ role: 'user', content: 'tidy up my docs' }] };
const toolTexts = (model: ModelServer, index: number) =>
  model.requests[index].body.messages.filter((m) => m.role === 'tool').map((m) => m.content);

/** A Judge that records every input it is asked about and answers with `decide`. */
function recordingJudge(
  decide: (input: JudgeInput) => Verdict | Promise<Verdict> = () => ({ action: 'allow' }),
): Judge & { inputs: JudgeInput[] } {
  const inputs: JudgeInput[] = [];
  return {
    inputs,
    async evaluate(input) {
      inputs.push(structuredClone(input));
      return decide(input);
    },
  };
}

describe('the judge inside the loop, end to end', () => {
  let model: ModelServer;
  let ran: Ran[];
  beforeEach(async () => {
    model = await startModelServer();
    ran = [];
  });
  afterEach(() => model.close());

  const gateway = (options: AgentLoopOptions) =>
    buildGateway(model.url, { trellis: recordingTrellis(ran), bindings: [binding], ...options });
  const send = (options: AgentLoopOptions) =>
    request(gateway(options).app).post('/v1/chat/completions').send(ask).expect(200);
  const shellThenAnswer = (args: Record<string, unknown> = { cmd: 'rm -rf /srv/docs' }): ScriptStep[] => [
    { toolCalls: [{ id: 'sh', name: 'shell', arguments: args }] },
    { content: 'final answer' },
  ];

  describe('tool_call surface', () => {
    it('block: the tool never runs, the model reads the policy text, the loop reaches its answer with HTTP 200', async () => {
      model.setScript(shellThenAnswer());
      const res = await send({
        judge: { rules: [{ surface: 'tool_call', tool: 'shell', action: 'block', reason: 'no shell access' }] },
      });

      expect(ran).toEqual([]);
      expect(toolTexts(model, 1)).toEqual(['tool error: blocked by policy: no shell access']);
      expect(model.requests[1].body.messages.find((m) => m.role === 'tool')?.tool_call_id).toBe('sh');
      expect(model.requests).toHaveLength(2);
      expect(res.body.choices[0].message).toEqual({ role: 'assistant', content: 'final answer' });
      expect(res.headers['x-agent-loop-stop']).toBe('final');
      expect(res.headers['x-agent-loop-blocked']).toBe('1');
    });

    it('rewrite: the tool runs with the rewritten arguments, and the context surface judges those', async () => {
      model.setScript(shellThenAnswer());
      const judge = recordingJudge((input) =>
        input.surface === 'tool_call'
          ? {
              action: 'rewrite',
              arguments: { ...input.arguments, dryRun: true },
              reason: 'destructive commands run dry',
            }
          : { action: 'allow' },
      );
      const res = await send({ judge });

      expect(ran).toEqual([{ tool: 'shell', args: { cmd: 'rm -rf /srv/docs', dryRun: true } }]);
      expect(toolTexts(model, 1)).toEqual(['ran: rm -rf /srv/docs (dry run)']);
      expect(
        judge.inputs.map(({ surface, tool, arguments: args, result }) => ({ surface, tool, args, result })),
      ).toEqual([
        { surface: 'tool_call', tool: 'shell', args: { cmd: 'rm -rf /srv/docs' }, result: undefined },
        {
          surface: 'context',
          tool: 'shell',
          args: { cmd: 'rm -rf /srv/docs', dryRun: true },
          result: 'ran: rm -rf /srv/docs (dry run)',
        },
      ]);
      expect(judge.inputs[0]).toMatchObject({
        binding: 'files',
        messages: [{ role: 'user', content: 'tidy up my docs' }, { role: 'assistant' }],
      });
      expect(res.headers['x-agent-loop-blocked']).toBe('0');
    });

    it('an allow-list of a folder (within) blocks the calls outside it, climbs included, and only those', async () => {
      model.setScript([
        { toolCalls: [{ id: 'o', name: 'files_open' }] },
        {
          toolCalls: [
            { id: 'out', name: 'files_read', arguments: { path: '/etc/passwd' } },
            { id: 'up', name: 'files_read', arguments: { path: '/srv/docs/../../etc/shadow' } },
            { id: 'encoded', name: 'files_read', arguments: { path: '/srv/docs/%2e%2e/%2e%2e/etc/shadow' } },
            { id: 'in', name: 'files_read', arguments: { path: '/srv/docs/guide.md' } },
          ],
        },
        { content: 'read the guide' },
      ]);
      const reason = 'only files under /srv/docs/ may be read';
      const rules = [
        {
          surface: 'tool_call',
          tool: 'files_read',
          when: { argument: 'path', within: ['/srv/docs'] },
          action: 'allow',
        },
        { surface: 'tool_call', tool: 'files_read', action: 'block', reason },
      ] as const;
      const res = await send({ judge: { rules: [...rules] } });

      expect(ran).toEqual([
        { tool: 'files_open', args: {} },
        { tool: 'files_read', args: { path: '/srv/docs/guide.md' } },
      ]);
      expect(toolTexts(model, 2)).toEqual([
        'opened /srv/docs',
        `tool error: blocked by policy: ${reason}`,
        `tool error: blocked by policy: ${reason}`,
        `tool error: blocked by policy: ${reason}`,
        'contents of /srv/docs/guide.md',
      ]);
      expect(res.body.choices[0].message.content).toBe('read the guide');
      expect(res.headers['x-agent-loop-blocked']).toBe('3');
    });
  });

  describe('context surface', () => {
    it('block: the tool ran, its result never reaches the model', async () => {
      model.setScript([{ toolCalls: [{ id: 'v', name: 'vault' }] }, { content: 'the vault is off limits' }]);
      const res = await send({
        judge: {
          rules: [{ surface: 'context', tool: 'vault', action: 'block', reason: 'vault contents are never shown' }],
        },
      });

      expect(ran).toEqual([{ tool: 'vault', args: {} }]);
      expect(toolTexts(model, 1)).toEqual(['tool error: blocked by policy: vault contents are never shown']);
      expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain('sk-live');
      expect(res.body.choices[0].message.content).toBe('the vault is off limits');
      expect(res.headers['x-agent-loop-blocked']).toBe('1');
    });

    it('rewrite: rulesJudge redacts an API key and a card number from a result', async () => {
      model.setScript([{ toolCalls: [{ id: 'v', name: 'vault' }] }, { content: 'done' }]);
      const res = await send({
        judge: {
          rules: [
            {
              surface: 'context',
              when: { content: 'sk-[A-Za-z0-9]{16,}' },
              action: 'rewrite',
              replace: '[REDACTED API KEY]',
              reason: 'api key',
            },
            {
              surface: 'context',
              when: { content: '\\b\\d{4}(?:[ -]?\\d{4}){3}\\b' },
              action: 'rewrite',
              replace: '[REDACTED CARD]',
              reason: 'card number',
            },
          ],
        },
      });

      expect(ran).toEqual([{ tool: 'vault', args: {} }]);
      expect(toolTexts(model, 1)).toEqual(['key=[REDACTED API KEY] card=[REDACTED CARD] owner=ada']);
      expect(res.headers['x-agent-loop-blocked']).toBe('0');
    });
  });

  it('monitor mode: everything passes untouched, every verdict is logged, x-agent-loop-blocked: 0', async () => {
    model.setScript([
      {
        toolCalls: [
          { id: 'sh', name: 'shell', arguments: { cmd: 'ls' } },
          { id: 'v', name: 'vault' },
        ],
      },
      { content: 'all seen' },
    ]);
    const { logger, lines } = memoryLogger('info');
    const res = await send({
      logger,
      judge: {
        mode: 'monitor',
        rules: [
          { surface: 'tool_call', tool: 'shell', action: 'block', reason: 'no shell access' },
          {
            surface: 'context',
            tool: 'vault',
            when: { content: 'sk-[A-Za-z0-9]+' },
            action: 'rewrite',
            replace: '[REDACTED]',
            reason: 'api key',
          },
        ],
      },
    });

    expect([...ran].sort((a, b) => a.tool.localeCompare(b.tool))).toEqual([
      { tool: 'shell', args: { cmd: 'ls' } },
      { tool: 'vault', args: {} },
    ]);
    expect(toolTexts(model, 1)).toEqual(['ran: ls', VAULT_TEXT]);
    expect(res.headers['x-agent-loop-blocked']).toBe('0');
    const verdicts = lines.filter((line) => line.message === 'judge verdict');
    const bySurfaceAndTool = (surface: string, tool: string) =>
      verdicts.find((line) => line.surface === surface && line.tool === tool);
    expect(verdicts).toHaveLength(4);
    const common = {
      message: 'judge verdict',
      mode: 'monitor',
      loopId: expect.stringMatching(/^[0-9a-f]{16}$/),
      durationMs: expect.any(Number),
    };
    expect(bySurfaceAndTool('tool_call', 'shell')).toEqual({
      ...common,
      level: 'warn',
      surface: 'tool_call',
      tool: 'shell',
      action: 'block',
      reason: 'no shell access',
    });
    expect(bySurfaceAndTool('tool_call', 'vault')).toEqual({
      ...common,
      level: 'info',
      surface: 'tool_call',
      tool: 'vault',
      action: 'allow',
    });
    expect(bySurfaceAndTool('context', 'shell')).toEqual({
      ...common,
      level: 'info',
      surface: 'context',
      tool: 'shell',
      action: 'allow',
    });
    expect(bySurfaceAndTool('context', 'vault')).toEqual({
      ...common,
      level: 'info',
      surface: 'context',
      tool: 'vault',
      action: 'rewrite',
      reason: 'api key',
    });
    expect(new Set(verdicts.map((line) => line.loopId)).size).toBe(1);
  });

  describe('fails closed', () => {
    it.each([
      [
        'throws',
        { judge: { evaluate: () => Promise.reject(new Error('policy store offline')) } },
        'judge failed: policy store offline',
      ],
      [
        'times out',
        { judge: { evaluate: () => new Promise<Verdict>(() => undefined) }, timeoutSec: 0.1 },
        'judge failed: timed out after 0.1s',
      ],
      [
        'returns garbage',
        { judge: { evaluate: async () => ({ action: 'maybe' }) as unknown as Verdict } },
        'judge failed: invalid verdict: action must be allow, block, rewrite or ask, got "maybe"',
      ],
    ])('a judge that %s blocks the call and the loop still answers', async (_case, judge, reason) => {
      model.setScript(shellThenAnswer());
      const res = await send({ judge: judge as AgentLoopOptions['judge'] });

      expect(ran).toEqual([]);
      expect(toolTexts(model, 1)).toEqual([`tool error: blocked by policy: ${reason}`]);
      expect(res.body.choices[0].message.content).toBe('final answer');
      expect(res.headers['x-agent-loop-blocked']).toBe('1');
    });

    it("onError: 'allow' lets the call run when the judge throws", async () => {
      model.setScript(shellThenAnswer({ cmd: 'ls' }));
      const res = await send({
        judge: { judge: { evaluate: () => Promise.reject(new Error('policy store offline')) }, onError: 'allow' },
      });

      expect(ran).toEqual([{ tool: 'shell', args: { cmd: 'ls' } }]);
      expect(toolTexts(model, 1)).toEqual(['ran: ls']);
      expect(res.headers['x-agent-loop-blocked']).toBe('0');
    });
  });

  it('deterministic checks first: a gated child call and bad JSON arguments never reach the judge', async () => {
    model.setScript([
      {
        toolCalls: [
          { id: 'gated', name: 'files_read', arguments: { path: '/srv/docs/a.md' } },
          { id: 'bad', name: 'shell', arguments: '{"oops' },
          { id: 'ok', name: 'shell', arguments: { cmd: 'ls' } },
        ],
      },
      { content: 'fine' },
    ]);
    const judge = recordingJudge();
    const res = await send({ judge });

    const badJson = (() => {
      try {
        JSON.parse('{"oops');
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(toolTexts(model, 1)).toEqual([
      "⛔ 'files_read' is locked: call 'files_open' first.",
      `tool error: arguments for 'shell' are not valid JSON (${badJson})`,
      'ran: ls',
    ]);
    expect(judge.inputs.map(({ surface, tool, arguments: args }) => ({ surface, tool, args }))).toEqual([
      { surface: 'tool_call', tool: 'shell', args: { cmd: 'ls' } },
      { surface: 'context', tool: 'shell', args: { cmd: 'ls' } },
    ]);
    expect(ran).toEqual([{ tool: 'shell', args: { cmd: 'ls' } }]);
    expect(res.headers['x-agent-loop-blocked']).toBe('0');
  });

  describe('llmJudge against the scripted model', () => {
    const policy = 'Never allow a shell command that deletes files.';
    // The judge's model matches the binding too: only the internal marker keeps the loop off the judge's self-call.
    const judgeModel = 'agent-judge';
    const agentOrJudge = (judgeReply: (input: Record<string, unknown>) => string) => {
      const agent = byTurn(shellThenAnswer());
      model.setScript((body, recorded) => {
        if (body.model !== judgeModel) return agent(body, recorded);
        return { content: judgeReply(JSON.parse(String(body.messages[1].content))) };
      });
    };

    it("blocks through a self-call that the front door sees as internal; the model gets the judge's request with the policy", async () => {
      agentOrJudge((input) =>
        JSON.stringify(
          input.surface === 'tool_call'
            ? { action: 'block', reason: 'deleting files is not allowed' }
            : { action: 'allow' },
        ),
      );
      const { app, seen } = gateway({ judge: { llm: { model: judgeModel, policy } } });
      const res = await request(app).post('/v1/chat/completions').send(ask).expect(200);

      expect(model.requests.map((r) => r.body.model)).toEqual(['agent-1', judgeModel, 'agent-1']);
      expect(seen).toEqual([
        { marker: false, internal: false },
        { marker: true, internal: true },
        { marker: true, internal: true },
        { marker: true, internal: true },
      ]);
      const judged = model.requests[1].body;
      expect(judged.tools).toBeUndefined();
      expect(judged.temperature).toBe(0);
      expect(judged.response_format).toEqual({ type: 'json_object' });
      expect(judged.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(String(judged.messages[0].content)).toContain(`Apply this policy:\n${policy}\n`);
      expect(JSON.parse(String(judged.messages[1].content))).toMatchObject({
        surface: 'tool_call',
        binding: 'files',
        tool: 'shell',
        arguments: { cmd: 'rm -rf /srv/docs' },
        recent_messages: [{ role: 'user', content: 'tidy up my docs' }, { role: 'assistant' }],
      });
      expect(ran).toEqual([]);
      expect(toolTexts(model, 2)).toEqual(['tool error: blocked by policy: deleting files is not allowed']);
      expect(res.body.choices[0].message.content).toBe('final answer');
      expect(res.headers['x-agent-loop-blocked']).toBe('1');
    });

    it('a judge reply that is not a verdict fails closed in the loop', async () => {
      agentOrJudge(() => 'Looks fine to me!');
      const res = await send({ judge: { llm: { model: judgeModel, policy } } });

      expect(model.requests.map((r) => r.body.model)).toEqual(['agent-1', judgeModel, 'agent-1']);
      expect(ran).toEqual([]);
      expect(toolTexts(model, 2)).toEqual(['tool error: blocked by policy: judge failed: llm judge reply is not JSON']);
      expect(res.body.choices[0].message.content).toBe('final answer');
      expect(res.headers['x-agent-loop-blocked']).toBe('1');
    });
  });

  it('without a judge there is no x-agent-loop-blocked header', async () => {
    model.setScript(shellThenAnswer({ cmd: 'ls' }));
    const res = await send({});
    expect(ran).toEqual([{ tool: 'shell', args: { cmd: 'ls' } }]);
    expect(res.headers['x-agent-loop-blocked']).toBeUndefined();
  });
});
