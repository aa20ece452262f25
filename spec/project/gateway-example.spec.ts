import example from '../../gateway.example.json';
import type * as Gateway from '../../lib/gateway/gateway';
import { createGateway } from '../../lib/gateway/gateway';
import type { GatewayConfig } from '../../lib/gateway/options';
import { INFERENCE_ROUTES } from '../../lib/gateway/routes';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { optionsSchema } from '../../lib/options/agent-loop';
import type { Rule } from '../../lib/judge/rule';
import { rulesJudge } from '../../lib/judge/rules';
import { scriptedModel } from '../../lib/testing/scripted-model';
import { startMcpServer } from '../../fixtures/mcp-server';
import { listen } from '../helpers/listen';
import { judgeContext, toolCall } from '../judge/inputs';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const NOT_JSON = ['logger'];
/**
 * left out on purpose: a secret belongs in MCP_INTERNAL_SECRET, the default self URL is right unless TLS ends inside
 * the app, and `metrics` needs the optional peer prom-client (the gateway turns it on by itself when installed), so
 * the example starts after a plain `npm install`; `store` needs the optional peer ioredis and a Redis ([A fleet](docs/fleet.md))
 */
const LEFT_OUT = ['internalSecret', 'selfUrl', 'metrics', 'store'];

describe('gateway.example.json', () => {
  beforeAll(() => {
    process.env[example.clientKeysEnv] = 'client-key-0123456789abcdef';
    process.env[example.upstream.apiKeyEnv] = 'sk-the-operators-key';
  });

  it('is a config createGateway accepts', async () => {
    const app = createGateway({ ...(example as GatewayConfig), logger: quiet });
    const loop = app.locals.agentLoop as AgentLoopMiddleware;
    expect(loop.settings.get()).toEqual({
      totalBudgetSec: example.totalBudgetSec,
      defaultMaxTurns: example.defaultMaxTurns,
      maxToolCallsPerTurn: example.maxToolCallsPerTurn,
      maxTokensPerLoop: example.maxTokensPerLoop,
      keyBudget: example.keyBudget,
      bindings: Object.fromEntries(
        example.bindings.map(({ name, maxTurns, toolTimeoutSec }) => [name, { maxTurns, toolTimeoutSec }]),
      ),
    });
    await loop.close();
  });

  it('starts without the optional peers (prom-client, @opentelemetry/api), as after a plain npm install', async () => {
    let gateway: typeof Gateway | undefined;
    jest.isolateModules(() => {
      for (const peer of ['prom-client', '@opentelemetry/api']) {
        jest.doMock(peer, () => {
          throw new Error(`Cannot find module '${peer}'`);
        });
      }
      gateway = jest.requireActual<typeof Gateway>('../../lib/gateway/gateway');
    });
    const app = gateway!.createGateway({ ...(example as GatewayConfig), logger: quiet });
    const loop = app.locals.agentLoop as AgentLoopMiddleware;
    expect(loop.metrics).toBeUndefined();
    await loop.close();
    jest.dontMock('prom-client').dontMock('@opentelemetry/api');
  });

  it('shows every JSON-serialisable option', () => {
    const options = Object.keys((optionsSchema.describe() as { keys: Record<string, unknown> }).keys);
    const shown = options.filter((option) => !NOT_JSON.includes(option) && !LEFT_OUT.includes(option));
    expect(Object.keys(example)).toEqual(
      expect.arrayContaining(['host', 'port', 'upstream', 'bodyLimit', 'clientKeysEnv', ...shown]),
    );
  });

  it("runs the notes binding's tools on a server that declares no annotations (MCP: destructive), and blocks such a tool of another server", async () => {
    const trellis = await startMcpServer({ clock: () => new Date(0) });
    const model = scriptedModel([
      { toolCalls: [{ name: 'notes_open' }, { name: 'clock_now' }] },
      { toolCalls: [{ name: 'notes_read', arguments: { id: 'groceries' } }] },
      { content: 'Done.' },
    ]);
    await model.ready;
    const config = {
      ...(example as GatewayConfig),
      upstream: { ...example.upstream, url: model.url },
      trellis: { mcp: { url: trellis.url } },
      telemetry: { tracing: false },
      logger: quiet,
    };
    const app = createGateway(config);
    const gateway = await listen(app);
    try {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer client-key-0123456789abcdef' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'my groceries?' }] }),
      });
      expect([res.status, res.headers.get('x-agent-loop-stop')]).toEqual([200, 'final']);
      const results = model.requests[2].body.messages as { role: string; content: string }[];
      expect(results.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
        'note ids: welcome, groceries, standup',
        '1970-01-01T00:00:00.000Z',
        'Milk, eggs, coffee beans, lemons.',
      ]);
      // the rule keeps its meaning for the tools nobody vouched for
      const judge = rulesJudge(example.judge.rules as Rule[]);
      expect(await judge.evaluate(toolCall('repo_delete', {}), judgeContext())).toEqual({
        action: 'block',
        reason: 'destructive tools need a human',
      });
    } finally {
      await gateway.close();
      await (app.locals.agentLoop as AgentLoopMiddleware).close();
      await Promise.all([trellis.close(), model.close()]);
    }
  }, 30_000);

  it('lists the routes the gateway forwards by default, to widen from', () => {
    expect(example.upstream.routes).toEqual(INFERENCE_ROUTES);
  });
});
