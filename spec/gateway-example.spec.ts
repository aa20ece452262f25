import example from '../gateway.example.json';
import { createGateway, type GatewayConfig } from '../lib/gateway';
import { INFERENCE_ROUTES } from '../lib/gateway-routes';
import type { AgentLoopMiddleware } from '../lib/middleware';
import { optionsSchema } from '../lib/options';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const NOT_JSON = ['logger'];
/** left out on purpose: a secret belongs in MCP_INTERNAL_SECRET, and the default self URL is right unless TLS ends inside the app */
const LEFT_OUT = ['internalSecret', 'selfUrl'];

describe('gateway.example.json', () => {
  it('is a config createGateway accepts', async () => {
    process.env[example.clientKeysEnv] = 'client-key-0123456789abcdef';
    const app = createGateway({ ...(example as GatewayConfig), logger: quiet });
    const loop = app.locals.agentLoop as AgentLoopMiddleware;
    expect(loop.settings.get()).toEqual({ totalBudgetSec: example.totalBudgetSec, defaultMaxTurns: example.defaultMaxTurns, maxToolCallsPerTurn: example.maxToolCallsPerTurn, maxTokensPerLoop: example.maxTokensPerLoop, bindings: Object.fromEntries(example.bindings.map(({ name, maxTurns, toolTimeoutSec }) => [name, { maxTurns, toolTimeoutSec }])) });
    await loop.close();
  });

  it('shows every JSON-serialisable option', () => {
    const options = Object.keys((optionsSchema.describe() as { keys: Record<string, unknown> }).keys);
    const shown = options.filter((option) => !NOT_JSON.includes(option) && !LEFT_OUT.includes(option));
    expect(Object.keys(example)).toEqual(expect.arrayContaining(['host', 'port', 'upstream', 'bodyLimit', 'clientKeysEnv', ...shown]));
  });

  it('lists the routes the gateway forwards by default, to widen from', () => {
    expect(example.upstream.routes).toEqual(INFERENCE_ROUTES);
  });
});
