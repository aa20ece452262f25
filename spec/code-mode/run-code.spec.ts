import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import type { AgentLoopOptions } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { programOutcome } from '../../lib/code-mode/run-code';
import { ConsentRequired } from '../../lib/trellis/oauth/consent';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

const calls: string[] = [];
const trellis = localTrellis([
  {
    name: 'weather',
    description: 'The weather in a city.',
    handler: (args) => (
      calls.push('weather'),
      { content: [{ type: 'text', text: 'sunny' }], structuredContent: { city: args.city, sky: 'sunny' } }
    ),
  },
  { name: 'count', description: 'A JSON text.', handler: () => (calls.push('count'), '{"n": 3}') },
  {
    name: 'wait',
    description: 'Waits until cancelled.',
    handler: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
  },
  {
    name: 'private',
    description: 'Needs the person to sign in.',
    handler: () => {
      throw new ConsentRequired('https://notes.test/mcp', 'https://gateway.test/oauth/callback/connect?state=s');
    },
  },
  {
    name: 'broken',
    description: 'Fails.',
    handler: () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }),
  },
]);
const run = (code: unknown, args?: string): ScriptStep => ({
  toolCalls: [{ id: 'run_1', name: 'run_code', arguments: args ?? ({ code } as Record<string, unknown>) }],
});

describe('run_code in the loop: every nested call a tool call of the loop', () => {
  let model: ModelServer;
  let gateway: Listening;
  const open = async (
    more: Partial<AgentLoopOptions['bindings'] extends (infer B)[] | undefined ? B : never> = {},
    top: Partial<AgentLoopOptions> = {},
  ) => {
    gateway = await listen(
      buildGateway(model.url, {
        trellis,
        bindings: [{ name: 'b', match: { model: 'agent-*' }, hierarchy: 'from-trellis', codeMode: true, ...more }],
        ...top,
      }).app,
    );
  };
  const ask = () =>
    gateway.client.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'go' }] });
  const result = () => model.requests[1].body.messages.find((m) => m.role === 'tool')?.content;

  beforeEach(async () => {
    calls.length = 0;
    model = await startModelServer();
  });
  afterEach(async () => {
    await gateway.close();
    await model.close();
  });

  it("resolves a call to the tool's structured content, else its text parsed as JSON; a failed tool throws its text", async () => {
    model.setScript([
      run(
        "const w = await tools.weather({ city: 'Oslo' });\nconst c = await tools.count({});\nlet e;\ntry { await tools.broken({}); } catch (error) { e = error.message; }\nreturn { w, c, e };",
      ),
      { content: 'Done.' },
    ]);
    await open();
    const answer = await ask().withResponse();

    expect(JSON.parse(String(result()))).toEqual({
      return: { w: { city: 'Oslo', sky: 'sunny' }, c: { n: 3 }, e: 'tool error: disk full' },
      log: [],
    });
    expect(answer.response.headers.get('x-agent-loop-tool-calls')).toBe('4');
  });

  it('bounds each call by toolTimeoutSec, refuses repeats, and throws unknown tools and run_code itself', async () => {
    model.setScript([
      run(
        "const seen = [];\nconst calls = [() => tools.wait({}), () => tools.count({}), () => tools.count({}), () => tools.nope({}), () => tools.run_code({ code: '1' }), () => tools.count(7)];\nfor (const call of calls) try { await call(); seen.push('ran'); } catch (error) { seen.push(error.message); }\nreturn seen;",
      ),
      { content: 'Done.' },
    ]);
    await open({ toolTimeoutSec: 1 }, { maxRepeatedCalls: 1 });
    await ask();

    expect(JSON.parse(String(result())).return).toEqual([
      "tool error: 'wait' timed out after 1s",
      'ran',
      "tool error: 'count' was already called with these arguments 1 times; use the earlier result or change the arguments",
      "tool error: unknown tool 'nope'; valid tools: weather, count, wait, private, broken",
      'tool error: a program cannot call run_code',
      "tool error: arguments for 'count' must be a JSON object, got 7",
    ]);
  });

  it('hands a call that needs approval back to the client; approved, the program runs again, answered from its log, and each call runs once', async () => {
    model.setScript([
      run(
        "const c = await tools.count({});\nconsole.log('counted');\nconst w = await tools.weather({ city: 'Oslo' });\nreturn { c, w };",
      ),
      { content: 'Done.' },
    ]);
    await open({ requireApproval: { never: { toolNames: ['count'] } } });
    const approve = {
      name: 'approve_tool_call',
      description: 'Ask the user.',
      parameters: { type: 'object', properties: {} },
    };
    const asked = {
      model: 'agent-1',
      messages: [{ role: 'user' as const, content: 'go' }],
      tools: [{ type: 'function' as const, function: approve }],
    };
    const handed = await gateway.client.chat.completions.create(asked);
    const [approval] = handed.choices[0].message.tool_calls ?? [];
    expect(approval.type === 'function' && JSON.parse(approval.function.arguments)).toEqual({
      tool: 'weather',
      arguments: { city: 'Oslo' },
      reason: "binding 'b' requires approval for 'weather'",
    });
    expect(approval.id).toMatch(/^run_1\.ap1\./);
    expect(calls).toEqual(['count']);

    const answer = await gateway.client.chat.completions.create({
      ...asked,
      messages: [
        ...asked.messages,
        handed.choices[0].message,
        { role: 'tool', tool_call_id: approval.id, content: '{"approved": true}' },
      ],
    });
    expect(answer.choices[0].message.content).toBe('Done.');
    expect(JSON.parse(String(result()))).toEqual({
      return: { c: { n: 3 }, w: { city: 'Oslo', sky: 'sunny' } },
      log: ['counted'],
    });
    expect(calls).toEqual(['count', 'weather']);
  });

  it('stops the program at a call whose server needs sign-in, and the loop answers with the consent', async () => {
    model.setScript([
      run(
        "await tools.count({});\ntry { await tools.private({}); } catch (error) { console.log(error.message); }\nreturn await tools.weather({ city: 'Oslo' });",
      ),
      { content: 'never read' },
    ]);
    await open();
    const { data, response } = await gateway.client.chat.completions
      .create({ model: 'agent-1', messages: [{ role: 'user', content: 'go' }] })
      .withResponse();
    expect(response.headers.get('x-agent-loop-stop')).toBe('authorization');
    expect(data.choices[0].message.content).toBe(
      '[agent-loop] https://notes.test/mcp needs your permission: open https://gateway.test/oauth/callback/connect?state=s, then send your message again.',
    );
    expect(calls).toEqual(['count']);
    expect(model.requests).toHaveLength(1);
  });

  it.each([
    [{ code: 7 }, undefined, 'tool error: run_code needs { code: string }'],
    [undefined, '{"code": ', "tool error: arguments for 'run_code' are not valid JSON"],
  ])('answers run_code called with %j %s readably', async (code, raw, text) => {
    model.setScript([run(code, raw), { content: 'Done.' }]);
    await open();
    await ask();
    expect(String(result())).toContain(text);
  });

  it('cuts what a program returns to maxToolResultBytes, as any tool result', async () => {
    model.setScript([run("return 'x'.repeat(5000);"), { content: 'Done.' }]);
    await open({}, { maxToolResultBytes: 1024 });
    await ask();
    expect(String(result())).toBe(`{"return":"${'x'.repeat(1013)}\n[truncated: 3998 of 5022 bytes cut]`);
  });

  it('runs on a streamed request too', async () => {
    model.setScript([run('return await tools.count({});'), { content: 'Three.' }]);
    await open();
    const stream = await gateway.client.chat.completions.create({
      model: 'agent-1',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Three.');
    expect(result()).toBe('{"return":{"n":3},"log":[]}');
  });
});

describe('what the model reads of a program that ended early', () => {
  const limits = { timeoutSec: 10, memoryMb: 64, maxCalls: 50 };
  it.each([
    [{ kind: 'cancelled' as const }, 'tool error: run_code: the program was stopped: the loop ended'],
    [
      { kind: 'crashed' as const, message: 'the sandbox stopped' },
      'tool error: run_code: the sandbox failed: the sandbox stopped',
    ],
    [{ kind: 'syntax' as const, name: 'SyntaxError', message: 'bad' }, 'tool error: run_code: syntax error: bad'],
    [{ kind: 'threw' as const, name: 'Error', message: 'x' }, 'tool error: run_code: the program threw Error: x'],
  ])('%j reads %s', (problem, text) => {
    expect(programOutcome({ ok: false, problem, log: [] }, limits, 65536)).toEqual({ kind: 'tool_error', text });
  });
});
