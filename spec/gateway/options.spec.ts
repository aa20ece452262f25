import { AgentLoopError } from '../../lib';
import { createGateway } from '../../lib/gateway/gateway';
import { validateGatewayConfig } from '../../lib/gateway/options';

describe("the gateway's own options", () => {
  it.each([
    [{}, "createGateway: option 'upstream' is undefined; it must be { url: 'http://127.0.0.1:11434/v1'"],
    [
      { upstrem: { url: 'http://x/v1' } },
      "createGateway: unknown option 'upstrem'. Did you mean `upstream`? Known options here: host, port, upstream, bodyLimit, clientKeys, clientKeysEnv, totalBudgetSec,",
    ],
    [
      { upstream: { url: 'http://x/v1' }, bodylimit: '1mb' },
      "createGateway: unknown option 'bodylimit'. Did you mean `bodyLimit`?",
    ],
    [
      { upstream: { url: 'http://x/v1' }, bodyLimit: '10 MB!' },
      "createGateway: option 'bodyLimit' is \"10 MB!\"; it must be a size in b, kb, mb or gb, or a number of bytes, e.g. '10mb'.",
    ],
    [
      { upstream: { url: 'nope' } },
      "createGateway: option 'upstream.url' is \"nope\"; it must be the upstream's OpenAI-compatible base URL",
    ],
    [
      { upstream: { url: 'http://x/v1' }, port: 70000 },
      "createGateway: option 'port' is 70000; it must be a port number",
    ],
    [
      { upstream: { url: 'http://x/v1' }, maxTurns: 3 },
      "createGateway: unknown option 'maxTurns'. Did you mean `defaultMaxTurns`?",
    ],
  ])('refuses a bad config %j with a coded error', (config, message) => {
    expect(() => createGateway(config as never)).toThrow(AgentLoopError);
    expect(() => createGateway(config as never)).toThrow(message);
  });

  it('checks a config without building a gateway, as the reload does', () => {
    expect(() => validateGatewayConfig({ upstream: { url: 'http://x/v1' } })).not.toThrow();
    expect(() => validateGatewayConfig({ upstream: { url: 'nope' } })).toThrow(
      "createGateway: option 'upstream.url' is \"nope\"; it must be the upstream's OpenAI-compatible base URL",
    );
  });
});
