import type OpenAI from 'openai';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer, type Script, type ScriptStep } from '../../fixtures/model-server';
import { createGateway } from '../../lib/gateway/gateway';
import type { GatewayConfig } from '../../lib/gateway/options';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from '../helpers/memory-logger';
import { listen } from '../helpers/listen';

export interface McpGateway {
  client: OpenAI;
  url: string;
  /** parsed log lines at warn and above */
  lines: Record<string, unknown>[];
  loop: AgentLoopMiddleware;
}

/**
 * The e2e rig: a real MCP server and a scripted model on loopback, `createGateway` listening on 127.0.0.1:0, and
 * the official openai client. Hooks close everything after each test.
 */
export function mcpRig() {
  const closers: (() => Promise<unknown>)[] = [];
  const rig = {
    mcp: undefined as unknown as McpFixtureServer,
    model: undefined as unknown as ModelServer,
    /** the texts of the tool messages the model received in its `index`-th request */
    toolTexts: (index: number) =>
      rig.model.requests[index].body.messages.filter((m) => m.role === 'tool').map((m) => m.content),
    async gateway(script: Script | ScriptStep[], config: Partial<GatewayConfig>): Promise<McpGateway> {
      rig.model.setScript(script);
      const { logger, lines } = memoryLogger('warn');
      const app = createGateway({
        upstream: { url: rig.model.url },
        trellis: { mcp: { url: rig.mcp.url } },
        logger,
        ...config,
      });
      const loop = app.locals.agentLoop as AgentLoopMiddleware;
      closers.push(() => loop.close());
      const { client, url, close } = await listen(app);
      closers.push(close);
      return { client, url, lines, loop };
    },
  };
  beforeEach(async () => {
    rig.mcp = await startMcpServer();
    rig.model = await startModelServer();
    closers.push(
      () => rig.mcp.close(),
      () => rig.model.close(),
    );
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return rig;
}

export const ask = (content = 'what is in my notes?') => ({
  model: 'agent-1',
  messages: [{ role: 'user' as const, content }],
});
