import Anthropic from '@anthropic-ai/sdk';
import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';

const tools: Anthropic.Tool[] = [{ name: 'clock_now', input_schema: { type: 'object', properties: {} } }];
const ask = { model: 'claude-test', max_tokens: 1024, tools };
const question: Anthropic.MessageParam = { role: 'user', content: 'What time is it?' };

/** The scripted model on Anthropic's Messages API, read by the official SDK, JSON and streamed. */
describe('the scripted model on Messages', () => {
  let model: ScriptedModel;
  let client: Anthropic;
  beforeAll(async () => {
    model = scriptedModel([
      {
        content: 'Let me check.',
        toolCalls: [{ name: 'clock_now', arguments: { zone: 'UTC' } }],
        usage: { inputTokens: 50, outputTokens: 9 },
      },
      { content: 'It is noon.' },
    ]);
    await model.ready;
    // the SDK adds /v1 itself
    client = new Anthropic({ baseURL: model.url.replace(/\/v1$/, ''), apiKey: 'sk-ant-test', maxRetries: 0 });
  });
  afterAll(() => model.close());

  it('answers with text and a tool_use block, then with the text once the conversation holds that turn', async () => {
    const first = await client.messages.create({ ...ask, messages: [question] });
    expect(first).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 9 },
    });
    expect(first.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_01/), name: 'clock_now', input: { zone: 'UTC' } },
    ]);
    const use = first.content[1] as Anthropic.ToolUseBlock;
    const second = await client.messages.create({
      ...ask,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '12:00' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It is noon.' }]);
    expect(second.stop_reason).toBe('end_turn');
    expect(second.usage).toMatchObject({
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('streams the events the API sends, which the SDK joins into the same Message', async () => {
    const whole = await client.messages.stream({ ...ask, messages: [question] }).finalMessage();
    expect(whole.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_01/), name: 'clock_now', input: { zone: 'UTC' } },
    ]);
    expect(whole.usage).toMatchObject({ input_tokens: 50, output_tokens: 9 });
  });

  it('names each event as the API does, `ping` after the first block start', async () => {
    const res = await fetch(`${model.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, messages: [question], stream: true }),
    });
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => frame.split('\n'));
    expect(events.every(([name, data]) => name === `event: ${JSON.parse(data.replace(/^data: /, '')).type}`)).toBe(
      true,
    );
    const names = events.map(([name]) => name.replace(/^event: /, ''));
    expect(names.slice(0, 4)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta']);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  it.each([
    ['no max_tokens', { model: 'claude-test', messages: [question] }, 'max_tokens: Field required'],
    ['no messages', { ...ask, messages: [] }, 'messages: at least one message is required'],
    [
      'a role it does not know',
      { ...ask, messages: [question, { role: 'tool', content: 'x' }] },
      "messages.1.role: Input should be 'user' or 'assistant'",
    ],
  ])('refuses a request with %s: a 400 in the API error shape', async (_case, body, message) => {
    const refused = await client.messages.create(body as never).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message },
      request_id: expect.stringMatching(/^req_/),
    });
  });
});
