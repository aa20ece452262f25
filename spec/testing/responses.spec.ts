import OpenAI from 'openai';
import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';

const tools: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'clock_now', parameters: { type: 'object', properties: {} }, strict: false },
];

/** The scripted model on the Responses API, read by the official openai client, JSON and streamed. */
describe('the scripted model on Responses', () => {
  let model: ScriptedModel;
  let client: OpenAI;
  beforeAll(async () => {
    model = scriptedModel([
      { toolCalls: [{ name: 'clock_now', arguments: { zone: 'UTC' } }], usage: { inputTokens: 40, outputTokens: 8 } },
      { content: 'It is noon.' },
      { content: 'Anything else?' },
    ]);
    await model.ready;
    client = new OpenAI({ baseURL: model.url, apiKey: 'sk-test', maxRetries: 0 });
  });
  afterAll(() => model.close());

  it('answers with a function_call item, then with the text once the input holds that turn', async () => {
    const first = await client.responses.create({ model: 'gpt-test', input: 'What time is it?', tools });
    expect(first).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-test',
      usage: { input_tokens: 40, output_tokens: 8, total_tokens: 48 },
    });
    const [call] = first.output as OpenAI.Responses.ResponseFunctionToolCall[];
    expect(call).toEqual({
      id: expect.stringMatching(/^fc_/),
      type: 'function_call',
      status: 'completed',
      call_id: expect.stringMatching(/^call_/),
      name: 'clock_now',
      arguments: '{"zone":"UTC"}',
    });

    const second = await client.responses.create({
      model: 'gpt-test',
      input: [
        { role: 'user', content: 'What time is it?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: '12:00' },
      ],
      tools,
    });
    expect(second.output_text).toBe('It is noon.');
    expect(second.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(second.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'It is noon.' }],
      },
    ]);
  });

  it('counts the turns of the response a request chains on (previous_response_id), and refuses one it never made', async () => {
    const first = await client.responses.create({ model: 'gpt-test', input: 'What time is it?', tools });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await client.responses.create({
      model: 'gpt-test',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '12:00' }],
    });
    expect(second.output_text).toBe('It is noon.');
    const third = await client.responses.create({
      model: 'gpt-test',
      previous_response_id: second.id,
      input: 'Thanks.',
    });
    expect(third.output_text).toBe('Anything else?');
    // a function entry reads the conversation whole: the chained responses' input and output, then the new input
    expect(model.requests.at(-1)!.history).toEqual([
      { type: 'message', role: 'user', content: 'What time is it?' },
      call,
      { type: 'function_call_output', call_id: call.call_id, output: '12:00' },
      second.output[0],
      { type: 'message', role: 'user', content: 'Thanks.' },
    ]);
    const refused = await client.responses
      .create({ model: 'gpt-test', previous_response_id: 'resp_unknown', input: 'Hi' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: "Previous response with id 'resp_unknown' not found.",
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
  });

  it('streams the events OpenAI sends, which the client joins into the same Response', async () => {
    const stream = client.responses.stream({ model: 'gpt-test', input: 'What time is it?', tools });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const whole = await stream.finalResponse();
    expect(whole.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'clock_now', arguments: '{"zone":"UTC"}' }),
    ]);
    expect(whole.usage).toMatchObject({ input_tokens: 40, output_tokens: 8 });
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...Array(3).fill('response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it.each([
    ['no input', { model: 'gpt-test' }, "Missing required parameter: 'input'."],
    [
      'an item that is not an object',
      { model: 'gpt-test', input: ['hello'] },
      "Invalid value for 'input[0]': expected an item object.",
    ],
  ])('refuses a request with %s: a 400 in OpenAI error shape', async (_case, body, message) => {
    const refused = await client.responses.create(body as never).catch((error: unknown) => error);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message,
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
  });
});
