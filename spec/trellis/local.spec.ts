import { localTrellis } from '../../lib/trellis/local';

const never = () => new AbortController().signal;

describe('localTrellis', () => {
  const trellis = localTrellis([
    {
      name: 'echo',
      description: 'Echoes `text`.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: ({ text }) => String(text),
    },
    { name: 'bare', handler: () => ({ content: [{ type: 'text', text: 'bare' }], isError: true }) },
    { name: 'boom', handler: () => Promise.reject(new Error('kaboom')) },
  ]);

  it('lists tools in MCP shape, with an open object schema by default', async () => {
    await expect(trellis.listTools()).resolves.toEqual([
      {
        name: 'echo',
        description: 'Echoes `text`.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      },
      { name: 'bare', inputSchema: { type: 'object' } },
      { name: 'boom', inputSchema: { type: 'object' } },
    ]);
  });

  it('wraps a string result as one text content', async () => {
    await expect(trellis.callTool('echo', { text: 'hi' }, { signal: never() })).resolves.toEqual({
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('returns a CallToolResult as-is, isError included', async () => {
    await expect(trellis.callTool('bare', {}, { signal: never() })).resolves.toEqual({
      content: [{ type: 'text', text: 'bare' }],
      isError: true,
    });
  });

  it('rejects with the error a handler throws', async () => {
    await expect(trellis.callTool('boom', {}, { signal: never() })).rejects.toThrow('kaboom');
  });

  it('rejects an unknown tool by name', async () => {
    await expect(trellis.callTool('nope', {}, { signal: never() })).rejects.toThrow("unknown tool 'nope'");
  });

  it.each([
    [
      [{ name: 'a', handle: () => '' }],
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "localTrellis: unknown option 'tools[0].handle'. Did you mean `handler`? Known options here: name, description, inputSchema, _meta, handler, task.",
    ],
    [
      [{ name: 'a' }],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "localTrellis: option 'tools[0].handler' is undefined; it must be a function of the arguments that returns the result text (or an MCP result), e.g. handler: () => new Date().toISOString().",
    ],
    [
      [{ name: 5, handler: () => '' }],
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "localTrellis: option 'tools[0].name' is 5; it must be the tool's name, e.g. name: 'clock_now'.",
    ],
    [
      { name: 'a', handler: () => '' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `localTrellis: option 'tools' is {"name":"a"}; it must be a list of tools, e.g. [{ name: 'clock_now', handler: () => new Date().toISOString() }].`,
    ],
  ])('refuses %j, naming the option, the value and the fix', (tools, code, message) => {
    expect(() => localTrellis(tools as never)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) }),
    );
  });

  it('refuses two tools with the same name', () => {
    expect(() =>
      localTrellis([
        { name: 'a', handler: () => '' },
        { name: 'a', handler: () => '' },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_INVALID_OPTION',
        message: "localTrellis: tool 'a' is defined twice; tool names must be unique",
      }),
    );
  });

  it('hands the signal to the handler and rejects with its reason on abort, even if the handler ignores it', async () => {
    let seen: AbortSignal | undefined;
    const stuck = localTrellis([
      { name: 'stuck', handler: (_args, { signal }) => ((seen = signal), new Promise<string>(() => undefined)) },
    ]);
    const controller = new AbortController();
    const call = stuck.callTool('stuck', {}, { signal: controller.signal });
    const reason = new Error('budget spent');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(seen).toBe(controller.signal);
  });

  it('does not run a handler when the signal has already aborted', async () => {
    const handler = jest.fn(() => 'ran');
    const controller = new AbortController();
    controller.abort();
    await expect(
      localTrellis([{ name: 't', handler }]).callTool('t', {}, { signal: controller.signal }),
    ).rejects.toHaveProperty('name', 'AbortError');
    expect(handler).not.toHaveBeenCalled();
  });

  it('scripts a tool that asks the person: it answers inputRequired, then gets the answers and the state back', async () => {
    const trellis = localTrellis([
      {
        name: 'pay',
        handler: (_args, { input }) =>
          input
            ? `paid from ${String((input.inputResponses.confirm as { content: { account: string } }).content.account)} (${input.requestState})`
            : {
                content: [],
                inputRequired: {
                  inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Pay?' } } },
                  requestState: 's1',
                },
              },
      },
    ]);
    const signal = new AbortController().signal;
    expect((await trellis.callTool('pay', {}, { signal })).inputRequired?.requestState).toBe('s1');
    const input = {
      inputResponses: { confirm: { action: 'accept', content: { account: 'main' } } },
      requestState: 's1',
    };
    expect(await trellis.callTool('pay', {}, { signal, input })).toEqual({
      content: [{ type: 'text', text: 'paid from main (s1)' }],
    });
  });
});
