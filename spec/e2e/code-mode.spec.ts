import { Registry } from 'prom-client';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import type { AgentLoopOptions } from '../../lib';
import type { Judge } from '../../lib/types';
import { localTrellis } from '../../lib/trellis/local';
import { createGateway } from '../../lib/gateway/gateway';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

const program = (code: string): ScriptStep => ({
  toolCalls: [{ id: 'run_1', name: 'run_code', arguments: { code } }],
});
const ask = (content = 'do it') => ({ model: 'agent-1', messages: [{ role: 'user' as const, content }] });

describe('code mode: the model writes one program that calls the tools, each call a real tool call of the loop', () => {
  let model: ModelServer;
  let mcp: McpFixtureServer;
  let gateway: Listening;
  const open = async (
    codeMode: NonNullable<AgentLoopOptions['bindings']>[number]['codeMode'],
    more: Partial<AgentLoopOptions> = {},
  ) => {
    gateway = await listen(
      buildGateway(model.url, {
        trellis: { mcp: { url: mcp.url } },
        bindings: [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: 'from-trellis', codeMode }],
        ...more,
      }).app,
    );
  };
  /** what the model read as the program's result */
  const programResult = (turn = 1) => model.requests[turn].body.messages.find((m) => m.role === 'tool')?.content;

  beforeEach(async () => {
    model = await startModelServer();
    mcp = await startMcpServer();
  });
  afterEach(async () => {
    await gateway?.close();
    await model.close();
    await mcp.close();
  });

  it('offers only run_code, declaring the tools as typed async functions, and gives the model the return value and the log', async () => {
    model.setScript([
      program(
        "const ids = await tools.notes_open({});\nconsole.log('opened', ids);\nconst note = await tools.notes_read({ id: 'groceries' });\nreturn { ids, note };",
      ),
      { content: 'Milk.' },
    ]);
    await open(true);
    const answer = await gateway.client.chat.completions.create(ask());

    expect(answer.choices[0].message.content).toBe('Milk.');
    const tools = model.requests[0].body.tools as { function: { name: string; description: string } }[];
    expect(tools.map((tool) => tool.function.name)).toEqual(['run_code']);
    expect(tools[0].function.description).toContain(
      '/** Read one note by id (open the notebook first). */\ntools.notes_read({ id }: { id: string }): Promise<unknown>;',
    );
    expect(JSON.parse(String(programResult()))).toEqual({
      return: { ids: 'note ids: welcome, groceries, standup', note: 'Milk, eggs, coffee beans, lemons.' },
      log: ['opened note ids: welcome, groceries, standup'],
    });
    expect(mcp.calls.map((call) => call.name)).toEqual(['notes_open', 'notes_read']);
  });

  it("throws the hierarchy gate's and the judge's refusals into the program as the seed's texts, which it can catch", async () => {
    const judge: Judge = {
      evaluate: async (input) =>
        input.surface === 'tool_call' && input.tool === 'clock_now'
          ? { action: 'block', reason: 'no clocks here' }
          : { action: 'allow' },
    };
    model.setScript([
      program(
        "const seen = [];\nfor (const call of [() => tools.notes_read({ id: 'standup' }), () => tools.clock_now({})])\n  try { await call(); } catch (error) { seen.push(error.message); }\nreturn seen;",
      ),
      { content: 'Locked.' },
    ]);
    await open(true, { judge });
    await gateway.client.chat.completions.create(ask());

    expect(JSON.parse(String(programResult())).return).toEqual([
      "⛔ 'notes_read' is locked: call 'notes_open' first.",
      'tool error: blocked by policy: no clocks here',
    ]);
    expect(mcp.calls).toEqual([]);
  });

  it.each([
    [
      'a while(true)',
      'while (true) {}',
      { timeoutSec: 1 },
      'tool error: run_code: the program ran past its deadline of 1s',
    ],
    [
      'a 2 GB string',
      "const s = '\\u4e00'.repeat(2 ** 30 - 1);\nreturn s.length;",
      { memoryMb: 16 },
      'tool error: run_code: the program ran out of memory (its limit is 16 MiB)',
    ],
    [
      'a flood of calls',
      'for (let i = 0; i < 10; i++) await tools.clock_now({ i });',
      { maxCalls: 3 },
      'tool error: run_code: the program made more than 3 tool calls',
    ],
    [
      'a syntax error',
      'const ids = await tools.notes_open({});\nconst x = ;',
      true,
      "tool error: run_code: syntax error on line 2: unexpected token in expression: ';'",
    ],
    [
      'a thrown error',
      "console.log('about to throw');\nthrow new TypeError('no such note');",
      true,
      'tool error: run_code: the program threw TypeError on line 2: no such note\nlog:\nabout to throw',
    ],
    [
      'a promise that never settles',
      'await new Promise(() => {});',
      true,
      'tool error: run_code: the program awaited a promise that never settles',
    ],
  ])('ends %s as a readable tool error, and the loop goes on', async (_what, code, codeMode, text) => {
    model.setScript([program(code), { content: 'Noted.' }]);
    await open(codeMode);
    const answer = await gateway.client.chat.completions.create(ask());

    expect(programResult()).toBe(text);
    expect(answer.choices[0].message.content).toBe('Noted.');
  });

  it("is a binding option of the gateway's JSON config too", async () => {
    model.setScript([program('return await tools.notes_open({});'), { content: 'Opened.' }]);
    const config = JSON.parse(
      JSON.stringify({
        upstream: { url: model.url },
        trellis: { mcp: { url: mcp.url } },
        bindings: [
          { name: 'notes', match: { model: 'agent-*' }, hierarchy: 'from-trellis', codeMode: { maxCalls: 2 } },
        ],
      }),
    );
    gateway = await listen(createGateway({ ...config, logger: { error() {}, warn() {}, info() {}, debug() {} } }));
    const answer = await gateway.client.chat.completions.create(ask());

    expect(answer.choices[0].message.content).toBe('Opened.');
    expect((model.requests[0].body.tools as { function: { description: string } }[])[0].function.description).toContain(
      'Limits: 10 s, 64 MiB, 2 tool calls.',
    );
    expect(programResult()).toBe('{"return":"note ids: welcome, groceries, standup","log":[]}');
  });

  it('counts the program and each call it made as tool calls in the metrics', async () => {
    const registry = new Registry();
    model.setScript([
      program("await tools.notes_open({});\nawait tools.notes_read({ id: 'welcome' });\nreturn 1;"),
      { content: 'Read.' },
    ]);
    await open(true, { metrics: { registry } });
    await gateway.client.chat.completions.create(ask());

    const calls = (await registry.metrics())
      .split('\n')
      .filter((line) => line.startsWith('agent_loop_tool_calls_total{'));
    expect(calls.sort()).toEqual([
      'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="notes_open",outcome="ok"} 1',
      'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="notes_read",outcome="ok"} 1',
      'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="run_code",outcome="ok"} 1',
    ]);
  });

  it('gives the program no host: no require, process, fetch or host functions, and the constructor chain stays inside', async () => {
    model.setScript([
      program(
        "const kinds = [typeof require, typeof process, typeof fetch, typeof __call, typeof __log];\nconst global = (() => {}).constructor('return this')();\nreturn [...kinds, typeof global.process, Object.keys(tools).length];",
      ),
      { content: 'Nothing.' },
    ]);
    await open(true);
    await gateway.client.chat.completions.create(ask());

    expect(JSON.parse(String(programResult())).return).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      0,
    ]);
  });
});

describe('code mode off the event loop', () => {
  it('serves another request while a program spins', async () => {
    const model = await startModelServer();
    let started: () => void = () => {};
    const spinning = new Promise<void>((resolve) => (started = resolve));
    const trellis = localTrellis([{ name: 'mark', description: 'Marks the start.', handler: () => (started(), 'ok') }]);
    model.setScript((body) => {
      if (body.messages.some((m) => m.role === 'tool')) return { content: 'Spun.' };
      return body.messages[0].content === 'spin'
        ? program('await tools.mark({});\nwhile (true) {}')
        : { content: 'Quick.' };
    });
    const gateway = await listen(
      buildGateway(model.url, {
        trellis,
        bindings: [
          { name: 'spin', match: { model: 'agent-*' }, hierarchy: 'from-trellis', codeMode: { timeoutSec: 60 } },
        ],
      }).app,
    );
    const cancel = new AbortController();
    let spinEnded = false;
    const spin = gateway.client.chat.completions
      .create(ask('spin'), { signal: cancel.signal })
      .catch(() => undefined)
      .finally(() => (spinEnded = true));
    await spinning;

    const quick = await gateway.client.chat.completions.create(ask('quick'));
    expect(quick.choices[0].message.content).toBe('Quick.');
    expect(spinEnded).toBe(false);

    cancel.abort();
    await spin;
    await gateway.close();
    await model.close();
  });
});
