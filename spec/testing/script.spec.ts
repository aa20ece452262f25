import { checkedScript, runCode, turnFor, type ScriptedRequest } from '../../lib/testing/script';

const ENTRY =
  "each entry is { content: 'text' }, { toolCalls: [{ name, arguments }] } (both may be given) or a function of the request returning one of those";
const TURNS = `it must be a list of the model's turns: ${ENTRY}; e.g. scriptedModel([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is noon.' }]).`;

const asked = (turn: number): ScriptedRequest => ({
  path: '/v1/chat/completions',
  headers: {},
  body: {},
  wire: 'chat',
  turn,
  history: [],
});

describe('a script of the scripted model', () => {
  it('takes text, tool calls, both, usage and functions', () => {
    const turns = [
      { content: '' },
      { toolCalls: [{ name: 'clock_now' }] },
      {
        content: 'Looking.',
        toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }],
        usage: { inputTokens: 3, outputTokens: 1 },
      },
      () => ({ content: 'hi' }),
    ];
    expect(checkedScript(turns)).toEqual(turns);
  });

  it.each([
    ['no entry', [], 'ERR_AGENT_LOOP_INVALID_OPTION', `scriptedModel: option 'turns' is []; ${TURNS}`],
    [
      'no list',
      { content: 'hi' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `scriptedModel: option 'turns' is {"content":"hi"}; ${TURNS}`,
    ],
    [
      'an entry of neither form',
      [{ content: 'hi' }, {}],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `scriptedModel: option 'turns[1]' is {}; must contain at least one of [content, toolCalls]; ${TURNS}`,
    ],
    [
      'a string entry',
      [{ content: 'hi' }, { content: 'hi' }, 'hello'],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `scriptedModel: option 'turns[2]' is "hello"; ${TURNS}`,
    ],
    [
      'a misspelt field',
      [{ text: 'hi' }],
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "scriptedModel: unknown option 'turns[0].text'. Known options here: content, toolCalls, usage.",
    ],
    [
      'text that is not a string',
      [{ content: 5 }],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "scriptedModel: option 'turns[0].content' is 5; it must be the answer's text, e.g. content: 'It is noon.'.",
    ],
    [
      'no tool calls in toolCalls',
      [{ toolCalls: [] }],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "scriptedModel: option 'turns[0].toolCalls' is []; it must be a list of the tool calls the model makes, e.g. toolCalls: [{ name: 'clock_now', arguments: {} }].",
    ],
    [
      'a call without a name',
      [{ toolCalls: [{ nme: 'x' }] }],
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "scriptedModel: unknown option 'turns[0].toolCalls[0].nme'. Did you mean `name`? Known options here: name, arguments.",
    ],
    [
      'arguments as a string',
      [{ toolCalls: [{ name: 'x', arguments: '{}' }] }],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "scriptedModel: option 'turns[0].toolCalls[0].arguments' is \"{}\"; it must be the call's arguments as an object, e.g. arguments: { city: 'Paris' }.",
    ],
    [
      'half a usage',
      [{ content: 'x', usage: { inputTokens: 1 } }],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "scriptedModel: option 'turns[0].usage.outputTokens' is undefined; it must be a whole number of tokens, e.g. outputTokens: 12.",
    ],
  ])('refuses %s, naming the entry, the value and the fix', (_case, turns, code, message) => {
    expect(() => checkedScript(turns as never)).toThrow(expect.objectContaining({ code, message }));
  });

  it('answers with code: runCode(code) is one run_code call with the program, an entry like any other', () => {
    const code = 'const ids = await tools.notes_open({});\nreturn ids;';
    expect(runCode(code)).toEqual({ toolCalls: [{ name: 'run_code', arguments: { code } }] });
    expect(checkedScript([runCode(code), { content: 'Done.' }])[0]).toEqual(runCode(code));
  });

  it('answers with the entry at the turn index, the last one past the end', async () => {
    const script = checkedScript([{ content: 'zero' }, { content: 'one' }]);
    expect(await Promise.all([0, 1, 7].map((turn) => turnFor(script, asked(turn))))).toEqual([
      { content: 'zero' },
      { content: 'one' },
      { content: 'one' },
    ]);
  });

  it("checks what a function entry returns, naming the entry's index", async () => {
    const script = checkedScript([
      { content: 'zero' },
      async (request) => ({ content: `turn ${request.turn}` }),
      () => ({ toolCalls: [] }),
    ]);
    expect(await turnFor(script, asked(1))).toEqual({ content: 'turn 1' });
    await expect(turnFor(script, asked(2))).rejects.toThrow(
      "entry 2 (a function) returned {\"toolCalls\":[]}: option 'toolCalls' is []; it must be a list of the tool calls the model makes, e.g. toolCalls: [{ name: 'clock_now', arguments: {} }].",
    );
    await expect(turnFor(checkedScript([() => undefined as never]), asked(0))).rejects.toThrow(
      'entry 0 (a function) returned undefined:',
    );
  });
});
