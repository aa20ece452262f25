import { hostname } from 'node:os';
import request from 'supertest';
import type { ScriptStep } from '../../fixtures/model-server';
import { ask, mcpRig } from '../e2e/mcp-gateway';
import { NUMBER_FIELDS } from '../../lib/options/tunables';
import { memoryLogger } from '../helpers/memory-logger';

const KEY = 'admin-key-0123456789abcdef';
process.env.TEST_ADMIN_KEY = KEY;
const bindings = [
  { name: 'notes', match: { model: 'agent-*' }, hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'slow'] },
];
const admin = { keyEnv: 'TEST_ADMIN_KEY' };
const openThenAnswer: ScriptStep[] = [{ toolCalls: [{ name: 'notes_open' }] }, { content: 'You have two notes.' }];

describe('the admin API of createGateway', () => {
  const rig = mcpRig();

  async function gateway(
    script: Parameters<typeof rig.gateway>[0] = openThenAnswer,
    config: Parameters<typeof rig.gateway>[1] = {},
  ) {
    const { logger, lines } = memoryLogger('info');
    const gw = await rig.gateway(script, { bindings, admin, logger, ...config });
    const as = (method: 'get' | 'patch' | 'put', path: string) =>
      request(gw.url)[method](`/admin/api${path}`).set('authorization', `Bearer ${KEY}`);
    return { ...gw, lines, as };
  }

  it('serves no admin route at all without an admin key configured', async () => {
    const { url } = await rig.gateway(openThenAnswer, { bindings });
    for (const path of ['/admin/api/settings', '/admin/', '/admin/api/loops'])
      expect((await request(url).get(path).set('authorization', `Bearer ${KEY}`)).status).toBe(404);
  });

  it("answers 401 in OpenAI's error shape without the key or with a wrong one, and logs it without the key", async () => {
    const { url, lines } = await gateway();
    const none = await request(url).get('/admin/api/settings');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="agent-loop admin"');
    expect(none.body).toEqual({
      error: {
        message: 'admin API: no admin key given; send Authorization: Bearer <admin key>',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    const wrong = await request(url)
      .patch('/admin/api/settings')
      .set('authorization', `Bearer ${KEY}x`)
      .send({ totalBudgetSec: 1 });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe('admin API: incorrect admin key provided');
    expect((await request(url).get('/admin/api/settings').set('authorization', KEY)).status).toBe(401);
    const refusals = lines.filter(
      (line) => line.message === 'agent-loop admin API refused a request: no or wrong admin key',
    );
    expect(refusals.map((line) => line.path)).toEqual([
      '/admin/api/settings',
      '/admin/api/settings',
      '/admin/api/settings',
    ]);
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });

  it("serves the settings form's fields, the whole-number tunables with their ranges, behind the key", async () => {
    const { url, as } = await gateway();
    expect((await request(url).get('/admin/api/settings/fields')).status).toBe(401);
    const fields = await as('get', '/settings/fields');
    expect(fields.status).toBe(200);
    expect(fields.headers['cache-control']).toBe('no-store');
    expect(fields.body).toEqual(NUMBER_FIELDS);
  });

  it('reads and changes the settings, logs what changed, and a new loop runs with them', async () => {
    const { client, as, lines } = await gateway();
    expect((await as('get', '/settings')).body).toEqual({
      totalBudgetSec: 120,
      defaultMaxTurns: 6,
      maxToolCallsPerTurn: 8,
      bindings: { notes: { maxTurns: 6, toolTimeoutSec: 30 } },
    });

    const changed = await as('patch', '/settings').send({
      totalBudgetSec: 60,
      maxTokensPerLoop: 5000,
      bindings: { notes: { maxTurns: 1 } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({
      totalBudgetSec: 60,
      defaultMaxTurns: 6,
      maxToolCallsPerTurn: 8,
      maxTokensPerLoop: 5000,
      bindings: { notes: { maxTurns: 1, toolTimeoutSec: 30 } },
    });
    expect(lines.find((line) => line.message === 'agent-loop settings changed')).toEqual(
      expect.objectContaining({
        source: 'admin API (127.0.0.1)',
        changed: {
          totalBudgetSec: { from: 120, to: 60 },
          maxTokensPerLoop: { from: null, to: 5000 },
          'bindings.notes.maxTurns': { from: 6, to: 1 },
        },
      }),
    );
    const { response } = await client.chat.completions.create(ask()).withResponse();
    expect(response.headers.get('x-agent-loop-stop')).toBe('max_turns');
    expect(response.headers.get('x-agent-loop-turns')).toBe('1');

    expect((await as('patch', '/settings').send({ maxTokensPerLoop: null })).body.maxTokensPerLoop).toBeUndefined();
  });

  it.each([
    [
      { totalBudgetSec: 0 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'totalBudgetSec' is 0; it must be a whole number from 1 to 3600 (default 120), e.g. totalBudgetSec: 120.",
    ],
    [
      { bindings: { notes: { toolTimeoutSec: 301 } } },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings.notes.toolTimeoutSec' is 301; it must be a whole number from 1 to 300 (default 30), e.g. toolTimeoutSec: 30.",
    ],
    [
      { bindings: { note: { maxTurns: 2 } } },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings.note'. Did you mean `notes`? Known options here: notes.",
    ],
    [
      { totalBudgetSecs: 5 },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      expect.stringContaining("agentLoop: unknown option 'totalBudgetSecs'. Did you mean `totalBudgetSec`?"),
    ],
    [
      { defaultMaxTurns: '3' },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      expect.stringContaining('agentLoop: option \'defaultMaxTurns\' is "3"'),
    ],
  ])('a bad value (%j) is a 400 with the coded message and changes nothing', async (patch, code, message) => {
    const { as } = await gateway();
    const before = (await as('get', '/settings')).body;
    const refused = await as('patch', '/settings').send({ defaultMaxTurns: 2, ...patch });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: { message, type: 'invalid_request_error', param: null, code } });
    expect((await as('get', '/settings')).body).toEqual(before);
  });

  it('refuses a body that is not a JSON object with a 400, and an unknown admin route with a 404', async () => {
    const { as } = await gateway();
    const notJson = await as('patch', '/settings').set('content-type', 'application/json').send('{"totalBudgetSec":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toEqual(
      expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request' }),
    );
    const array = await as('patch', '/settings').send([1]);
    expect(array.body.error.message).toBe(
      'admin API: the body must be a JSON object sent with content-type: application/json, e.g. { "totalBudgetSec": 60 }.',
    );
    const unknown = await as('get', '/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('a loop in flight keeps the settings it started with', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const script = async (body: { messages: { role: string }[] }): Promise<ScriptStep> => {
      if (!body.messages.some((m) => m.role === 'tool')) return openThenAnswer[0];
      await held;
      return openThenAnswer[1];
    };
    const { client, as } = await gateway(script);
    const answer = client.chat.completions.create(ask()).withResponse();
    await until(async () => (await as('get', '/loops')).body.inFlight[0]?.turn === 2);
    await as('patch', '/settings')
      .send({ bindings: { notes: { maxTurns: 1 } } })
      .expect(200);
    release();
    const { data, response } = await answer;
    expect(data.choices[0].message.content).toBe('You have two notes.');
    expect(response.headers.get('x-agent-loop-turns')).toBe('2');
  });

  it('lists each binding with its match, the tools it offers now and its Trellis state', async () => {
    const { as } = await gateway(openThenAnswer, { trellis: { mcp: { url: rig.mcp.url, listTtlSec: 0 } } });
    const tools = [
      { name: 'notes_open', description: 'Open the notebook and list the ids of its notes.' },
      { name: 'notes_read', description: 'Read one note by id (open the notebook first).' },
      { name: 'slow', description: 'Waits `ms` milliseconds, or until cancelled.' },
    ];
    const listed = (await as('get', '/bindings')).body.bindings;
    expect(listed).toEqual([
      {
        name: 'notes',
        match: { model: 'agent-*' },
        maxTurns: 6,
        toolTimeoutSec: 30,
        tools,
        trellis: { state: 'ok', mcpSession: expect.any(String) },
      },
    ]);
    rig.mcp.failWith(503);
    const failing = (await as('get', '/bindings')).body.bindings[0];
    expect(failing.tools).toEqual(tools);
    expect(failing.trellis).toEqual({
      state: 'failing',
      reason: expect.stringContaining('503'),
      mcpSession: expect.any(String),
    });
  });

  it('reads and replaces the judge rules: validated like the option (RE2), applied to the loops that start after', async () => {
    const { client, as, lines } = await gateway(openThenAnswer, { judge: { rules: [], mode: 'enforce' } });
    expect((await as('get', '/judge/rules')).body).toEqual({ judge: 'rules', mode: 'enforce', rules: [] });
    const lookahead = await as('put', '/judge/rules').send({
      rules: [{ surface: 'tool_call', tool: 'notes_*', when: { argument: 'id', matches: '(?=a)' }, action: 'block' }],
    });
    expect(lookahead.status).toBe(400);
    expect(lookahead.body.error.code).toBe('ERR_AGENT_LOOP_INVALID_OPTION');
    expect(lookahead.body.error.message).toContain('option \'judge.rules[0].when.matches\' is "(?=a)"');
    expect(lookahead.body.error.message).toContain(
      'Rules match in linear time (RE2 syntax: no lookahead, lookbehind or backreferences)',
    );
    expect((await as('get', '/judge/rules')).body.rules).toEqual([]);

    const rules = [
      { surface: 'tool_call', tool: 'notes_open', action: 'block', reason: 'the notebook is closed today' },
    ];
    expect((await as('put', '/judge/rules').send({ rules })).body).toEqual({ judge: 'rules', mode: 'enforce', rules });
    expect(lines.find((line) => line.message === 'agent-loop judge rules replaced')).toEqual(
      expect.objectContaining({ source: 'admin API (127.0.0.1)', rules: 1 }),
    );
    await client.chat.completions.create(ask());
    expect(rig.toolTexts(1)).toEqual(['tool error: blocked by policy: the notebook is closed today']);
    const [loop] = (await as('get', '/loops')).body.recent;
    expect(loop.verdicts).toEqual([
      { turn: 1, surface: 'tool_call', tool: 'notes_open', action: 'block', reason: 'the notebook is closed today' },
    ]);
    expect(loop.turns[0].toolCalls[0].outcome).toBe('blocked');
  });

  it('makes rules a judge where there was none, and says 409 for a judge without rules', async () => {
    const { as } = await gateway();
    expect((await as('get', '/judge/rules')).body).toEqual({ judge: 'none', rules: null });
    expect((await as('put', '/judge/rules').send({ rules: [{ surface: 'context', action: 'allow' }] })).body).toEqual({
      judge: 'rules',
      mode: 'enforce',
      rules: [{ surface: 'context', action: 'allow' }],
    });
    const custom = await gateway(openThenAnswer, { judge: { evaluate: async () => ({ action: 'allow' as const }) } });
    const refused = await custom.as('put', '/judge/rules').send({ rules: [] });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_NOT_A_RULES_JUDGE',
        message: expect.stringContaining('a custom Judge, which has no rules to replace'),
      }),
    );
  });

  it('shows the loops in flight with their running tool calls, then the finished ones with turns, outcomes and tokens, no contents', async () => {
    const script: ScriptStep[] = [
      {
        toolCalls: [
          { name: 'slow', arguments: { ms: 400 } },
          { name: 'notes_read', arguments: { id: 'a' } },
        ],
      },
      { content: 'Done waiting.' },
    ];
    const { client, as } = await gateway(script);
    const answer = client.chat.completions.create(ask()).withResponse();
    let inFlight: Record<string, unknown> = {};
    await until(async () => {
      [inFlight] = (await as('get', '/loops')).body.inFlight;
      return (inFlight?.running as unknown[] | undefined)?.length === 1;
    });
    const { response } = await answer;
    expect(inFlight).toEqual(
      expect.objectContaining({
        id: response.headers.get('x-agent-loop-id'),
        binding: 'notes',
        model: 'agent-1',
        turn: 1,
        running: [expect.objectContaining({ tool: 'slow', startMs: expect.any(Number) })],
      }),
    );
    expect(inFlight.durationMs).toEqual(expect.any(Number));

    const { inFlight: none, recent, captureContent } = (await as('get', '/loops')).body;
    expect({ none, captureContent }).toEqual({ none: [], captureContent: false });
    expect(recent).toEqual([
      {
        id: response.headers.get('x-agent-loop-id'),
        binding: 'notes',
        model: 'agent-1',
        replica: `${hostname()}:${process.pid}`,
        startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        durationMs: expect.any(Number),
        turn: 2,
        stop: 'final',
        usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
        verdicts: [],
        turns: [
          {
            turn: 1,
            startMs: expect.any(Number),
            durationMs: expect.any(Number),
            outcome: 'ok',
            tokens: 15,
            toolCalls: [
              {
                id: expect.any(String),
                tool: 'slow',
                startMs: expect.any(Number),
                durationMs: expect.any(Number),
                outcome: 'ok',
              },
              {
                id: expect.any(String),
                tool: 'notes_read',
                startMs: expect.any(Number),
                durationMs: expect.any(Number),
                outcome: 'refused',
              },
            ],
          },
          {
            turn: 2,
            startMs: expect.any(Number),
            durationMs: expect.any(Number),
            outcome: 'ok',
            tokens: 15,
            toolCalls: [],
          },
        ],
      },
    ]);
    expect(recent[0].turns[0].toolCalls[0].durationMs).toBeGreaterThanOrEqual(400);
  });

  it('keeps message contents, arguments and results in the records only with telemetry.captureContent', async () => {
    const { client, as } = await gateway(openThenAnswer, { telemetry: { captureContent: true, tracing: false } });
    await client.chat.completions.create(ask());
    const { recent, captureContent } = (await as('get', '/loops')).body;
    expect(captureContent).toBe(true);
    expect(recent[0].turns[0].toolCalls[0]).toEqual(
      expect.objectContaining({ tool: 'notes_open', arguments: '{}', result: 'note ids: welcome, groceries, standup' }),
    );
    expect(recent[0].turns[1].content).toBe('You have two notes.');
  });

  it('keeps the last 100 finished loops', async () => {
    const { client, as } = await gateway([{ content: 'hi' }]);
    for (let batch = 0; batch < 6; batch++)
      await Promise.all(Array.from({ length: 17 }, () => client.chat.completions.create(ask())));
    const { recent } = (await as('get', '/loops')).body;
    expect(recent).toHaveLength(100);
    expect(new Set(recent.map((loop: { id: string }) => loop.id)).size).toBe(100);
  });
});

/** Polls until `condition` holds (no timed assertion: a generous bound only against a hang). */
async function until(condition: () => Promise<boolean>, bound = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > bound) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
