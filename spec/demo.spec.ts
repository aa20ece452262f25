import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startDemo, type Demo } from '../fixtures/demo';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const WALK = 'Let me look in your notes.\n\nThe notebook has to be opened first.\n\n';

describe('the npm start demo', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, logger: quiet });
  });
  afterAll(() => demo.close());

  const post = (body: string) => fetch(`${demo.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('answers the curl it prints with a four-turn loop, again and again', async () => {
    expect(demo.curl).toMatch(new RegExp(`^curl -si ${demo.url}/v1/chat/completions -H 'content-type: application/json' -d '`));
    const body = /-d '(.*)'$/.exec(demo.curl)![1];
    for (let i = 0; i < 3; i++) {
      const res = await post(body);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-agent-loop-turns')).toBe('4');
      expect(res.headers.get('x-agent-loop-tool-calls')).toBe('4');
      expect(res.headers.get('x-agent-loop-stop')).toBe('final');
      const answer = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(answer.choices[0].message.content).toMatch(new RegExp(`^${WALK}Your note 'groceries' says: Milk, eggs, coffee beans, lemons\\. \\(checked at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)$`));
    }
  });

  it('loops for any model name and any question', async () => {
    const res = await post(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello?' }] }));
    expect(res.headers.get('x-agent-loop-turns')).toBe('4');
    const answer = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(answer.choices[0].message.content).toMatch(new RegExp(`^${WALK}Your note 'welcome' says: Welcome to the demo notebook\\. Ask me anything about the notes\\. \\(checked at `));
  });

  const answered = new RegExp(`^${WALK}Your note 'groceries' says: Milk, eggs, coffee beans, lemons\\. \\(checked at `);

  it('runs the same four-turn loop for the OpenAI Responses client', async () => {
    const client = new OpenAI({ baseURL: `${demo.url}/v1`, apiKey: 'demo', maxRetries: 0 });
    const { data: response, response: raw } = await client.responses.create({ model: 'demo', input: 'What is on my grocery list?' }).withResponse();
    expect([raw.headers.get('x-agent-loop-turns'), raw.headers.get('x-agent-loop-tool-calls'), raw.headers.get('x-agent-loop-stop')]).toEqual(['4', '4', 'final']);
    expect(response.output_text).toMatch(answered);
  });

  it('runs the same four-turn loop for the Anthropic Messages client, streaming too', async () => {
    const client = new Anthropic({ baseURL: demo.url, apiKey: 'demo', maxRetries: 0 });
    const request = { model: 'demo', max_tokens: 256, messages: [{ role: 'user' as const, content: 'What is on my grocery list?' }] };
    const { data: message, response: raw } = await client.messages.create(request).withResponse();
    expect([raw.headers.get('x-agent-loop-turns'), raw.headers.get('x-agent-loop-tool-calls')]).toEqual(['4', '4']);
    const text = (content: Anthropic.ContentBlock[]) => content.map((block) => (block.type === 'text' ? block.text : '')).join('\n\n');
    expect(text(message.content)).toMatch(answered);
    const streamed = await client.messages.stream(request).finalMessage();
    expect([streamed.stop_reason, text(streamed.content)]).toEqual(['end_turn', expect.stringMatching(answered)]);
  });

  it('says how to pick another port when its port is taken', async () => {
    const port = Number(new URL(demo.url).port);
    await expect(startDemo({ port, logger: quiet })).rejects.toThrow(
      `listen EADDRINUSE: address already in use 127.0.0.1:${port}: is the demo already running? PORT=${port + 1} npm start picks another port`,
    );
  });
});
