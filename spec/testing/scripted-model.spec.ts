import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';
import type { ScriptedRequest } from '../../lib/testing/script';

async function post(
  model: ScriptedModel,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${model.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test': 'yes' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });
const textOf = (reply: { body: Record<string, unknown> }) =>
  (reply.body as { choices: { message: { content: string } }[] }).choices[0].message.content;

describe('scriptedModel', () => {
  const started: ScriptedModel[] = [];
  async function start(...turns: Parameters<typeof scriptedModel>): Promise<ScriptedModel> {
    const model = scriptedModel(...turns);
    started.push(model);
    await model.ready;
    return model;
  }
  afterAll(() => Promise.all(started.map((model) => model.close())));

  it('answers each conversation with the entry of its turn index, so concurrent ones each follow the script; past the end, the last entry', async () => {
    const model = await start([{ content: 'zero' }, { content: 'one' }, { content: 'two' }]);
    const [a, b, c, d] = await Promise.all([
      post(model, '/chat/completions', {
        messages: [user('q'), assistant('zero'), user('q'), assistant('one'), user('q')],
      }),
      post(model, '/chat/completions', { messages: [user('q')] }),
      post(model, '/chat/completions', { messages: [user('q'), assistant('zero'), user('q')] }),
      post(model, '/chat/completions', { messages: [user('q'), ...Array(5).fill(assistant('x'))] }),
    ]);
    expect([a, b, c, d].map(textOf)).toEqual(['two', 'zero', 'one', 'two']);
  });

  it('records every request it answers: path, headers, parsed body, wire, turn index and history', async () => {
    const model = await start([{ content: 'hi' }]);
    await post(model, '/chat/completions', { model: 'm', messages: [user('q'), assistant('a'), user('q')] });
    await post(model, '/responses', { model: 'm', input: 'q' });
    await post(model, '/messages', { model: 'm', max_tokens: 9, messages: [user('q')] });
    expect(model.requests).toEqual([
      {
        path: '/v1/chat/completions',
        headers: expect.objectContaining({ 'x-test': 'yes' }),
        body: { model: 'm', messages: [user('q'), assistant('a'), user('q')] },
        wire: 'chat',
        turn: 1,
        history: [user('q'), assistant('a'), user('q')],
      },
      {
        path: '/v1/responses',
        headers: expect.objectContaining({ 'x-test': 'yes' }),
        body: { model: 'm', input: 'q' },
        wire: 'responses',
        turn: 0,
        history: [{ type: 'message', role: 'user', content: 'q' }],
      },
      {
        path: '/v1/messages',
        headers: expect.objectContaining({ 'x-test': 'yes' }),
        body: { model: 'm', max_tokens: 9, messages: [user('q')] },
        wire: 'messages',
        turn: 0,
        history: [user('q')],
      },
    ]);
  });

  it('counts a Responses turn once however many items it wrote (reasoning, text, calls), and a Messages turn per assistant message', async () => {
    const model = await start([{ content: 'zero' }, { content: 'one' }, { content: 'two' }]);
    const turn = [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'message', role: 'assistant', content: [] },
      { type: 'function_call', call_id: 'c1', name: 't', arguments: '{}' },
      { type: 'function_call', call_id: 'c2', name: 't', arguments: '{}' },
    ];
    const answers = [
      { type: 'function_call_output', call_id: 'c1', output: 'x' },
      { type: 'function_call_output', call_id: 'c2', output: 'y' },
    ];
    const responses = await post(model, '/responses', { input: [user('q'), ...turn, ...answers, ...turn, ...answers] });
    expect(responses.body.output).toEqual([
      expect.objectContaining({ content: [expect.objectContaining({ text: 'two' })] }),
    ]);
    const messages = await post(model, '/messages', {
      model: 'm',
      max_tokens: 9,
      messages: [user('q'), assistant('a'), user('r')],
    });
    expect(messages.body.content).toEqual([{ type: 'text', text: 'one' }]);
  });

  it('asks a function entry with the request and its turn, and answers with what it returns', async () => {
    const seen: ScriptedRequest[] = [];
    const model = await start([
      (request) => {
        seen.push(request);
        return { content: `you said ${(request.body.messages as { content: string }[]).at(-1)!.content}` };
      },
    ]);
    expect(textOf(await post(model, '/chat/completions', { messages: [user('hello')] }))).toBe('you said hello');
    expect(seen).toEqual([expect.objectContaining({ path: '/v1/chat/completions', wire: 'chat', turn: 0 })]);
  });

  it("answers 500 in the wire's error shape, naming the entry, when a function entry returns neither form or throws", async () => {
    const model = await start([
      { content: 'zero' },
      () => ({ text: 'oops' }) as never,
      async () => Promise.reject(new Error('the tool list is empty')),
    ]);
    const returned = await post(model, '/messages', {
      model: 'm',
      max_tokens: 9,
      messages: [user('q'), assistant('a'), user('q')],
    });
    expect(returned).toEqual({
      status: 500,
      body: {
        type: 'error',
        error: {
          type: 'api_error',
          message: `scriptedModel: entry 1 (a function) returned {"text":"oops"}: unknown option 'text'. Known options here: content, toolCalls, usage.`,
        },
        request_id: expect.any(String),
      },
    });
    const thrown = await post(model, '/chat/completions', { messages: [user('q'), assistant('a'), assistant('b')] });
    expect(thrown).toEqual({
      status: 500,
      body: {
        error: {
          message: 'scriptedModel: entry 2 (a function) threw: the tool list is empty',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
    });
  });

  it.each([
    [
      '/chat/completions',
      {
        error: {
          message: 'The request body is not valid JSON.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    ],
    [
      '/responses',
      {
        error: {
          message: 'The request body is not valid JSON.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    ],
    [
      '/messages',
      {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
        request_id: expect.stringMatching(/^req_/),
      },
    ],
  ])(
    "answers a body that is not JSON on %s with a 400 in that wire's error shape, and records nothing",
    async (path, body) => {
      const model = await start([{ content: 'hi' }]);
      expect(await post(model, path, '{"messages": [')).toEqual({ status: 400, body });
      expect((await post(model, path, '[1, 2]')).body).toEqual(
        expect.objectContaining({
          error: expect.objectContaining({ message: 'The request body must be a JSON object.' }),
        }),
      );
      expect(model.requests).toEqual([]);
    },
  );

  it("answers a path of no wire, or a wire's path under another base, with a 404 that names the paths it serves", async () => {
    const model = await start([{ content: 'hi' }]);
    const said = (path: string) =>
      `scriptedModel answers POST /v1/chat/completions, /v1/responses and /v1/messages, not POST ${path}`;
    expect(await post(model, '/embeddings', {})).toEqual({
      status: 404,
      body: { error: expect.objectContaining({ message: said('/v1/embeddings') }) },
    });
    expect(await post(model, '/v1/chat/completions', {})).toEqual({
      status: 404,
      body: { error: expect.objectContaining({ message: said('/v1/v1/chat/completions') }) },
    });
  });

  it('has no url before it listens, and takes no connection once closed', async () => {
    const model = scriptedModel([{ content: 'hi' }]);
    expect(() => model.url).toThrow('scriptedModel: the url is known once it listens: `await model.ready` first');
    await model.ready;
    const url = model.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await model.close();
    await expect(fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' })).rejects.toThrow('fetch failed');
  });

  it('throws at construction for a script of neither form, naming the entry', () => {
    expect(() => scriptedModel([{ content: 'hi' }, { contnet: 'typo' } as never])).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_UNKNOWN_OPTION',
        message:
          "scriptedModel: unknown option 'turns[1].contnet'. Did you mean `content`? Known options here: content, toolCalls, usage.",
      }),
    );
  });
});
