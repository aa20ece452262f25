import http from 'node:http';
import request from 'supertest';
import { localTrellis } from '../../lib/trellis/local';
import type { Judge } from '../../lib/types';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import { buildGateway } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';
import { listen, type Listening } from '../helpers/listen';
import { until } from '../helpers/store-contract';

interface ToolCallRecord {
  name: string;
  at: number;
  abortedAt?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client that sends the request and can vanish at any moment, as a closed browser tab does. */
function openClient(url: string, body: unknown): { gone: () => number } {
  const req = http.request(
    `${url}/v1/chat/completions`,
    { method: 'POST', headers: { 'content-type': 'application/json' } },
    (res) => res.resume(),
  );
  req.on('error', () => undefined);
  req.end(JSON.stringify(body));
  return {
    gone() {
      req.destroy();
      return Date.now();
    },
  };
}

describe.each([
  ['a JSON client', false],
  ['a streaming client', true],
])('a disconnect from %s', (_name, stream) => {
  let model: ModelServer;
  let gateway: Listening;
  let calls: ToolCallRecord[];
  let client: { gone: () => number };
  beforeEach(async () => {
    model = await startModelServer();
    calls = [];
  });
  afterEach(async () => {
    await gateway.close();
    await model.close();
  });

  const record = (name: string, signal: AbortSignal) => {
    const call: ToolCallRecord = { name, at: Date.now() };
    calls.push(call);
    signal.addEventListener('abort', () => (call.abortedAt = Date.now()));
    return call;
  };
  const trellis = localTrellis([
    { name: 'quick', handler: (_args, { signal }) => (record('quick', signal), 'quick result') },
    {
      name: 'slow',
      handler: (_args, { signal }) => (
        record('slow', signal),
        new Promise((resolve) => setTimeout(() => resolve('slow result'), 800))
      ),
    },
    {
      name: 'stuck',
      handler: (_args, { signal }) => {
        record('stuck', signal);
        return new Promise((resolve) => {
          const done = setTimeout(() => resolve('stuck result'), 60_000);
          signal.addEventListener('abort', () => clearTimeout(done));
        });
      },
    },
  ]);
  /** Reviews each tool result and, on the first one, makes the client vanish: the loop is between a tool call and the next turn. */
  const vanishingJudge: Judge = {
    async evaluate(input, { signal }) {
      if (input.surface === 'context' && calls.length === 1) {
        client.gone();
        await new Promise((resolve) => {
          signal.addEventListener('abort', resolve);
          setTimeout(resolve, 300);
        });
      }
      return { action: 'allow' };
    },
  };

  async function start(
    onClientDisconnect: 'abort' | 'finish',
    script: ScriptStep[],
    extra: Record<string, unknown> = {},
  ) {
    model.setScript(script);
    const { logger, lines } = memoryLogger('info');
    const bindings = [{ name: 'tools', match: { model: 'agent-*' }, hierarchy: ['quick', 'slow', 'stuck'] }];
    gateway = await listen(buildGateway(model.url, { trellis, bindings, logger, onClientDisconnect, ...extra }).app);
    client = openClient(gateway.url, { model: 'agent-1', messages: [{ role: 'user', content: 'go' }], stream });
    return lines;
  }

  const ending = [{ toolCalls: [{ name: 'quick' }] }, { content: 'all done' }];

  describe("onClientDisconnect: 'abort'", () => {
    it('cancels the model call in flight, long before it would end, and makes no further call', async () => {
      // the model would answer a minute in: a call cut before its reply was cancelled, however loaded the machine
      const lines = await start('abort', [{ toolCalls: [{ name: 'quick' }], delayMs: 60_000 }, { content: 'never' }]);
      await until(() => model.requests.length === 1);
      await pause(50);
      client.gone();
      await until(() => model.requests[0].abortedAt !== undefined);
      await until(() => lines.some((line) => line.message === 'agent-loop abandoned: the client went away'));
      await pause(300);
      expect(model.requests).toHaveLength(1);
      expect(calls).toEqual([]);
    });

    it('cancels the tool call in flight, long before it would end, and makes no further model call', async () => {
      const lines = await start('abort', [{ toolCalls: [{ name: 'stuck' }] }, { content: 'never' }]);
      await until(() => calls.length === 1);
      client.gone();
      // the tool would end a minute in: its signal aborted means it was cancelled, however loaded the machine
      await until(() => calls[0].abortedAt !== undefined);
      await until(() => lines.some((line) => line.message === 'agent-loop abandoned: the client went away'));
      await pause(1000);
      expect(model.requests).toHaveLength(1);
      expect(calls).toHaveLength(1);
    });

    it('makes no model or tool call once the client left between turns', async () => {
      const lines = await start(
        'abort',
        [{ toolCalls: [{ name: 'quick' }] }, { toolCalls: [{ name: 'quick' }] }, { content: 'never' }],
        { judge: vanishingJudge },
      );
      await until(() => lines.some((line) => line.message === 'agent-loop abandoned: the client went away'));
      await pause(300);
      expect(model.requests).toHaveLength(1);
      expect(calls).toHaveLength(1);
    });
  });

  describe("onClientDisconnect: 'finish'", () => {
    const finished = (lines: Record<string, unknown>[]) =>
      lines.find((line) => line.message === 'agent-loop finished: the client went away');

    it('finishes the loop after a disconnect during a model turn and logs the outcome', async () => {
      const lines = await start('finish', [{ toolCalls: [{ name: 'quick' }], delayMs: 300 }, { content: 'all done' }]);
      await until(() => model.requests.length === 1);
      client.gone();
      await until(() => finished(lines) !== undefined);
      expect(finished(lines)).toMatchObject({ stop: 'final', turns: 2, toolCalls: 1 });
      expect(model.requests).toHaveLength(2);
      expect(model.requests[0].abortedAt).toBeUndefined();
    });

    it('finishes the loop after a disconnect during a tool call', async () => {
      const lines = await start('finish', [{ toolCalls: [{ name: 'slow' }] }, { content: 'all done' }]);
      await until(() => calls.length === 1);
      client.gone();
      await until(() => finished(lines) !== undefined);
      expect(calls[0].abortedAt).toBeUndefined();
      expect(model.requests[1].body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'slow result' });
    });

    it('finishes the loop after a disconnect between turns', async () => {
      const lines = await start('finish', ending, { judge: vanishingJudge });
      await until(() => finished(lines) !== undefined);
      expect(finished(lines)).toMatchObject({ stop: 'final', turns: 2 });
      expect(model.requests).toHaveLength(2);
    });
  });
});

describe('one loop set up for one client request', () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer();
  });
  afterEach(() => model.close());
  const trellis = localTrellis([{ name: 'quick', handler: () => 'quick result' }]);
  const bindings = [{ name: 'tools', match: { model: 'agent-*' }, hierarchy: ['quick'] }];
  const ask = { model: 'agent-1', messages: [{ role: 'user', content: 'go' }] };

  it("names the loop in x-agent-loop-id and logs its answer under the client's x-request-id", async () => {
    model.setScript([{ toolCalls: [{ id: 'c1', name: 'quick' }] }, { content: 'Done.' }]);
    const { logger, lines } = memoryLogger('info');
    const res = await request(buildGateway(model.url, { trellis, bindings, logger }).app)
      .post('/v1/chat/completions')
      .set('x-request-id', 'req-42')
      .send(ask)
      .expect(200);

    expect(res.headers['x-agent-loop-id']).toMatch(/^[0-9a-f]{16}$/);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'agent-loop answered',
        requestId: 'req-42',
        loopId: res.headers['x-agent-loop-id'],
        binding: 'tools',
        wire: 'chat',
        stop: 'final',
        stream: false,
        turns: 2,
        toolCalls: 1,
      }),
    );
  });

  it('names the loop on a fall-through too, and logs why it fell through', async () => {
    model.setScript((sent) => (sent.tools ? { status: 503 } : { content: 'from the normal handler' }));
    const { logger, lines } = memoryLogger('info');
    const res = await request(buildGateway(model.url, { trellis, bindings, logger }).app)
      .post('/v1/chat/completions')
      .send(ask)
      .expect(200);

    expect(res.body.choices[0].message.content).toBe('from the normal handler');
    expect(res.headers['x-agent-loop-id']).toMatch(/^[0-9a-f]{16}$/);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'agent-loop fell through to the normal handler',
        loopId: res.headers['x-agent-loop-id'],
        binding: 'tools',
        wire: 'chat',
      }),
    );
  });
});
