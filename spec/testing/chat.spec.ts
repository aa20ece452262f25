import OpenAI from 'openai';
import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'clock_now', parameters: { type: 'object', properties: {} } } },
];
const question: OpenAI.Chat.ChatCompletionMessageParam = { role: 'user', content: 'What time is it?' };

/** The scripted model on chat completions, read by the official openai client, JSON and streamed. */
describe('the scripted model on chat completions', () => {
  let model: ScriptedModel;
  let client: OpenAI;
  beforeAll(async () => {
    model = scriptedModel([
      {
        content: 'Let me check.',
        toolCalls: [{ name: 'clock_now', arguments: { zone: 'UTC' } }],
        usage: { inputTokens: 30, outputTokens: 7 },
      },
      { content: 'It is noon.' },
    ]);
    await model.ready;
    client = new OpenAI({ baseURL: model.url, apiKey: 'sk-test', maxRetries: 0 });
  });
  afterAll(() => model.close());

  it('answers with the tool call of turn 0, then the text of turn 1 once the conversation holds the first turn', async () => {
    const first = await client.chat.completions.create({ model: 'gpt-test', messages: [question], tools });
    expect(first).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-test',
      usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
    });
    const [choice] = first.choices;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message).toMatchObject({ role: 'assistant', content: 'Let me check.' });
    const [call] = choice.message.tool_calls as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(call).toEqual({
      id: expect.stringMatching(/^call_/),
      type: 'function',
      function: { name: 'clock_now', arguments: '{"zone":"UTC"}' },
    });

    const second = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [question, choice.message, { role: 'tool', tool_call_id: call.id, content: '12:00' }],
      tools,
    });
    expect(second.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'It is noon.' },
    });
    expect(second.choices[0].message.tool_calls).toBeUndefined();
    expect(second.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('streams the same turn as chunks the client joins into the same message, the usage last when stream_options asks for it', async () => {
    const stream = client.chat.completions.stream({
      model: 'gpt-test',
      messages: [question],
      tools,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const whole = await stream.finalChatCompletion();
    expect(whole.choices[0].message).toMatchObject({
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [{ type: 'function', function: { name: 'clock_now', arguments: '{"zone":"UTC"}' } }],
    });
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0].id)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
    });
  });

  it('streams no usage chunk unless asked, and ends with [DONE]', async () => {
    const res = await fetch(`${model.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [question], stream: true }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.replace(/^data: /, '')));
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(chunks.at(-1).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
  });

  it.each([
    ['no messages', { model: 'gpt-test' }, "Missing required parameter: 'messages'."],
    [
      'a message that is not an object',
      { model: 'gpt-test', messages: [question, 'hello'] },
      "Invalid value for 'messages[1]': expected a message object with a 'role'.",
    ],
  ])('refuses a request with %s: a 400 in OpenAI error shape, as the client reads it', async (_case, body, message) => {
    const refused = await client.chat.completions.create(body as never).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message,
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
  });
});
