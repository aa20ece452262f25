import type OpenAI from 'openai';
import type { AgentLoopOptions } from '../../lib';
import { localTrellis, runCode, scriptedModel, type ScriptedModel, type ScriptedRequest } from '../../lib/testing';
import type { ScriptedTurn } from '../../lib/testing/wire';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { answerText } from './wire-clients';

const trellis = localTrellis([
  { name: 'notes_open', description: 'Open the notebook. Lists note ids.', handler: () => '["groceries"]' },
  {
    name: 'notes_read',
    description: 'Read one note by id.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    handler: ({ id }) => `note ${String(id)}: milk`,
  },
  { name: 'clock_now', description: 'The time now.', handler: () => 'noon' },
]);
const binding = (more: object = {}) => ({
  name: 'notes',
  match: { model: '*' },
  hierarchy: 'from-trellis' as const,
  codeMode: true,
  toolSearch: { above: 1 },
  ...more,
});
const SEARCH: ScriptedTurn = { toolCalls: [{ name: 'tool_search', arguments: { query: 'read a note' } }] };
const PROGRAM = 'const ids = await tools.notes_open({});\nreturn await tools.notes_read({ id: ids[0] });';
const DECLARED = [
  '/** Read one note by id. */\ntools.notes_read({ id }: { id: string }): Promise<unknown>;',
  '/** Open the notebook. */\ntools.notes_open(args: Record<string, unknown>): Promise<unknown>;',
].join('\n');
const FIND =
  'Find the tools with tool_search: its answer declares the tools found, which your programs can call from then on.';

/** What the model read last: the last message's text (a tool result's content). */
const lastRead = (request: ScriptedRequest) => String(request.history.at(-1)?.content);
const names = (tools: unknown) => (tools as { function: { name: string } }[]).map((tool) => tool.function.name);

describe('code mode with tool search: run_code declares no tool, tool_search declares those it finds', () => {
  let model: ScriptedModel;
  let gateway: Listening;
  const open = async (script: Parameters<typeof scriptedModel>[0], options: Partial<AgentLoopOptions> = {}) => {
    model = scriptedModel(script);
    await model.ready;
    gateway = await listen(buildGateway(model.url, { trellis, bindings: [binding()], ...options }).app);
  };
  afterEach(async () => {
    await gateway?.close();
    await model?.close();
  });

  it('offers the same tools, byte for byte, on every turn, and the program calls the tools the search found', async () => {
    await open([SEARCH, runCode(PROGRAM), (request) => ({ content: lastRead(request) })]);
    const answer = await gateway.client.chat.completions.create({
      model: 'agent-1',
      messages: [{ role: 'user', content: 'what is in my groceries note?' }],
    });

    expect(answer.choices[0].message.content).toBe('{"return":"note groceries: milk","log":[]}');
    const tools = model.requests.map((request) => JSON.stringify(request.body.tools));
    expect(tools).toHaveLength(3);
    expect(new Set(tools).size).toBe(1);
    expect(names(model.requests[0].body.tools)).toEqual(['run_code', 'tool_search']);
    const [runCodeTool, searchTool] = model.requests[0].body.tools as { function: { description: string } }[];
    expect(runCodeTool.function.description.endsWith(`tool calls.\n\n${FIND}`)).toBe(true);
    expect(searchTool.function.description).toContain('each declared as an async function of `tools`');
    expect(lastRead(model.requests[1])).toBe(DECLARED);
  });

  it.each(['responses', 'messages', 'gemini'] as const)(
    'keeps the tools byte for byte on %s too, JSON and streamed',
    async (wire) => {
      await open([
        SEARCH,
        runCode(PROGRAM),
        (request) => ({ content: JSON.stringify(request.history).includes('note groceries: milk') ? 'Milk.' : '?' }),
      ]);
      for (const stream of [false, true]) {
        const start = model.requests.length;
        expect(await answerText(gateway, wire, stream, 'what is in my groceries note?')).toBe('Milk.');
        const tools = model.requests.slice(start).map((request) => JSON.stringify(request.body.tools));
        expect(tools).toHaveLength(3);
        expect(new Set(tools).size).toBe(1);
        expect(JSON.stringify(model.requests[start + 2].history)).toContain('tools.notes_read({ id }: { id: string })');
      }
    },
  );

  it('refuses, inside the program, a tool no search found yet', async () => {
    await open([
      runCode('try { await tools.clock_now({}); } catch (error) { return error.message; }'),
      { content: 'ok' },
    ]);
    await gateway.client.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'time?' }] });

    expect(lastRead(model.requests[1])).toBe(
      `{"return":"tool error: 'clock_now' is not loaded: call tool_search first","log":[]}`,
    );
  });

  it('declares the tools kept from turn 1 in run_code, and lets programs call them without a search', async () => {
    await open([runCode('return await tools.clock_now({});'), { content: 'ok' }], {
      bindings: [binding({ toolSearch: { above: 1, keep: ['clock_now'] } })],
    });
    await gateway.client.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'time?' }] });

    const [runCodeTool] = model.requests[0].body.tools as { function: { description: string } }[];
    expect(runCodeTool.function.description).toContain(
      `tool calls.\n\n/** The time now. */\ntools.clock_now(args: Record<string, unknown>): Promise<unknown>;\n${FIND}`,
    );
    expect(lastRead(model.requests[1])).toBe('{"return":"noon","log":[]}');
  });

  it("carries the tools found across a hand-back: the follow-up's program calls them, the tools unchanged", async () => {
    const pick: OpenAI.Chat.ChatCompletionTool = {
      type: 'function',
      function: { name: 'pick_note', description: 'Asks the user which note', parameters: { type: 'object' } },
    };
    await open([
      (request) => {
        const read = JSON.stringify(request.history);
        if (read.includes('note groceries: milk')) return { content: 'Milk.' };
        if (lastRead(request) === 'groceries') return runCode(PROGRAM);
        if (read.includes('tools.notes_read')) return { toolCalls: [{ name: 'pick_note', arguments: {} }] };
        return SEARCH;
      },
    ]);
    const user = { role: 'user' as const, content: 'read the note I pick' };
    const handed = (await gateway.client.chat.completions.create({ model: 'agent-1', messages: [user], tools: [pick] }))
      .choices[0].message;
    const call = handed.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('pick_note');

    const answer = await gateway.client.chat.completions.create({
      model: 'agent-1',
      tools: [pick],
      messages: [
        user,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'groceries' },
      ],
    });
    expect(answer.choices[0].message.content).toBe('Milk.');
    const tools = model.requests.map((request) => JSON.stringify(request.body.tools));
    expect(tools).toHaveLength(4);
    expect(new Set(tools).size).toBe(1);
    expect(names(model.requests[0].body.tools)).toEqual(['run_code', 'pick_note', 'tool_search']);
  });
});
