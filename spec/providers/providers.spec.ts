import { readFileSync } from 'node:fs';
import path from 'node:path';
import type OpenAI from 'openai';
import { localTrellis } from '../../lib/trellis/local';
import { RECORDINGS } from '../../fixtures/providers';
import { gemini } from '../../fixtures/providers/gemini';
import { groq, groqToolUseFailed, TOOL_USE_FAILED } from '../../fixtures/providers/groq';
import { FINAL, USER, type FollowUpMessage, type Recording } from '../../fixtures/providers/recording';
import { providerUpstream, type ProviderUpstream } from '../../fixtures/providers/upstream';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

const ran: { name: string; arguments: Record<string, unknown> }[] = [];
const trellis = localTrellis([
  {
    name: 'get_weather',
    inputSchema: { type: 'object', properties: { location: { type: 'string' } } },
    handler: (args) => (ran.push({ name: 'get_weather', arguments: args }), '18°C, sunny'),
  },
  { name: 'get_time', handler: (args) => (ran.push({ name: 'get_time', arguments: args }), '14:05') },
]);
const binding = { name: 'weather', match: { model: '*' }, hierarchy: ['get_weather', 'get_time'] };

interface Run {
  upstream: ProviderUpstream;
  gateway: Listening;
}

async function start(recording: Recording): Promise<Run> {
  const upstream = await providerUpstream(recording);
  const gateway = await listen(buildGateway(upstream.url, { trellis, bindings: [binding] }).app);
  return { upstream, gateway };
}

async function stop(run: Run | undefined): Promise<void> {
  await run?.gateway.close();
  await run?.upstream.close();
}

/** What the client reads: the answer's text and the loop's headers, through the official client. */
async function ask(client: OpenAI, stream: boolean): Promise<{ text: string; headers: Headers }> {
  const params = { model: 'provider-model', messages: [{ role: 'user' as const, content: USER }] };
  if (!stream) {
    const { data, response } = await client.chat.completions.create(params).withResponse();
    return { text: data.choices[0].message.content ?? '', headers: response.headers };
  }
  const { data, response } = await client.chat.completions.create({ ...params, stream: true }).withResponse();
  let text = '';
  for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
  return { text, headers: response.headers };
}

/** The keys every delta of the recorded stream carried, on the message and on its calls (`index` places, it is no field). */
function streamedKeys(parts: string[]): { message: Set<string>; call: Set<string> } {
  const keys = { message: new Set<string>(), call: new Set<string>() };
  for (const line of parts.join('').split(/\r\n|\n/)) {
    if (!line.startsWith('data:') || line.endsWith('[DONE]')) continue;
    const delta = JSON.parse(line.slice(5)).choices?.[0]?.delta ?? {};
    for (const key of Object.keys(delta)) keys.message.add(key);
    for (const call of delta.tool_calls ?? [])
      for (const key of Object.keys(call)) if (key !== 'index') keys.call.add(key);
  }
  return keys;
}

const byName = (calls: typeof ran) => [...calls].sort((a, b) => a.name.localeCompare(b.name));

describe.each(RECORDINGS.map((recording) => [recording.provider, recording] as const))(
  'provider conformance: %s',
  (_provider, recording) => {
    let run: Run;
    beforeAll(async () => {
      run = await start(recording);
    });
    afterAll(() => stop(run));

    it.each([false, true])(
      'stream: %s: the tool runs with the sent arguments, the follow-up is accepted, the client gets the final text',
      async (stream) => {
        ran.length = 0;
        const seen = run.upstream.requests.length;
        const { text, headers } = await ask(run.gateway.client, stream);

        expect(byName(ran)).toEqual(byName(recording.calls));
        const [first, followUp] = run.upstream.requests.slice(seen);
        expect(first.body.stream === true).toBe(stream);
        expect(run.upstream.requests.slice(seen).map((request) => request.status)).toEqual([200, 200]);
        expect(text.endsWith(FINAL)).toBe(true);
        if (!stream)
          expect([headers.get('x-agent-loop-stop'), headers.get('x-agent-loop-turns')]).toEqual(['final', '2']);

        const assistant = followUp.body.messages.find((message) => message.role === 'assistant') as FollowUpMessage;
        const ids = (assistant.tool_calls ?? []).map((call) => call.id);
        const answered = followUp.body.messages
          .filter((message) => message.role === 'tool')
          .map((message) => message.tool_call_id);
        expect(new Set(ids).size).toBe(recording.calls.length);
        expect([...answered].sort()).toEqual([...ids].sort());

        if (!stream) {
          // the model's own message, every field of it and of each call; ids only where the loop had to give one
          const { message } = (recording.json.choices as { message: FollowUpMessage }[])[0];
          const recordedIds = (message.tool_calls ?? []).map((call) => call.id);
          const kept = recordedIds.map((id, i) =>
            typeof id === 'string' && id !== '' && recordedIds.indexOf(id) === i ? id : expect.any(String),
          );
          expect(assistant).toMatchObject({
            ...message,
            tool_calls: (message.tool_calls ?? []).map((call, i) => ({ ...call, id: kept[i] })),
          });
        } else {
          const keys = streamedKeys(recording.sse);
          expect(Object.keys(assistant)).toEqual(expect.arrayContaining([...keys.message]));
          for (const call of assistant.tool_calls ?? [])
            expect(Object.keys(call)).toEqual(
              expect.arrayContaining([...keys.call].filter((key) => key !== 'extra_content' || call.extra_content)),
            );
        }
      },
    );
  },
);

describe('provider conformance: the scripted providers refuse what their real APIs refuse', () => {
  /** The follow-up a loop that rebuilt the message from the fields it knew would send. */
  function rebuilt(recording: Recording): FollowUpMessage[] {
    const { message } = (recording.json.choices as { message: FollowUpMessage }[])[0];
    const calls = (message.tool_calls ?? []).map((call, i) => ({
      id: `call_loop_1_${i}`,
      type: 'function',
      function: { name: call.function?.name, arguments: call.function?.arguments },
    }));
    return [
      { role: 'user', content: USER },
      { role: 'assistant', content: message.content ?? null, tool_calls: calls },
      ...calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: 'ok' })),
    ];
  }

  it.each(
    RECORDINGS.filter((recording) => recording.refuse).map((recording) => [recording.provider, recording] as const),
  )('%s', async (_provider, recording) => {
    const refusal = recording.refuse?.(rebuilt(recording));
    expect(refusal?.status).toBe(400);
    expect(JSON.stringify(refusal?.body)).toMatch(
      /reasoning_content|thinking|thought_signature|Tool call id was call_loop_1_0/,
    );
  });
});

describe('provider conformance: a refused or failed follow-up', () => {
  let run: Run | undefined;
  afterEach(() => stop(run));

  it("Gemini's error body, a JSON list, still names Gemini's message in the note", async () => {
    const message = 'Function call is missing a thought_signature in functionCall parts.';
    run = await start({
      ...gemini,
      refuse: undefined,
      followUp: { status: 400, body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }] },
    });
    const { text, headers } = await ask(run.gateway.client, false);
    expect(
      text.endsWith(
        `[agent-loop] Stopped before a final answer: the model call of turn 2 failed (HTTP 400: ${message}).`,
      ),
    ).toBe(true);
    expect(headers.get('x-agent-loop-stop')).toBe('upstream_error');
  });

  it("Groq's tool_use_failed, an error event inside a 200 stream, fails the turn like a model error", async () => {
    run = await start({ ...groq, followUp: { sse: groqToolUseFailed } });
    const { text } = await ask(run.gateway.client, true);
    expect(
      text.endsWith(
        `[agent-loop] Stopped before a final answer: the model call of turn 2 failed (the model stream sent an error: ${TOOL_USE_FAILED}).`,
      ),
    ).toBe(true);
  });
});

it('the Providers table (docs/providers.md) says what was tested for each provider, and where its shapes come from', () => {
  const readme = readFileSync(path.join(__dirname, '..', '..', 'docs', 'providers.md'), 'utf8');
  for (const recording of RECORDINGS)
    expect(readme).toContain(`| ${recording.provider} | ${recording.tested} | ${recording.source} |`);
});
