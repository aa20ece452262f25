import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import {
  startMessagesServer,
  type MessagesScript,
  type MessagesServer,
  type MessagesStep,
} from '../../fixtures/messages-server';
import { agentLoop, type AgentLoopOptions } from '../../lib';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from '../helpers/memory-logger';
import { listen } from '../helpers/listen';

export const CLIENT_KEY = 'sk-ant-client-key';

export interface MessagesGateway {
  url: string;
  /** the official Anthropic SDK, pointed at the gateway */
  anthropic: Anthropic;
  /** the AI SDK's Anthropic provider, pointed at the gateway */
  aiSdk: ReturnType<typeof createAnthropic>;
  loop: AgentLoopMiddleware;
  lines: Record<string, unknown>[];
}

/**
 * The Messages e2e rig: a real MCP server, the scripted Anthropic upstream (which takes only the client's key), and
 * a gateway as a user builds one: express.json(), agentLoop, and http-proxy-middleware to the upstream on
 * POST /v1/messages as the normal handler. Hooks close everything after each test.
 */
export function messagesRig() {
  const closers: (() => Promise<unknown>)[] = [];
  const rig = {
    mcp: undefined as unknown as McpFixtureServer,
    upstream: undefined as unknown as MessagesServer,
    /** the tool_result blocks of the upstream's `index`-th request's last message */
    results: (index: number) => {
      const { messages } = rig.upstream.requests[index].body;
      return messages[messages.length - 1].content as {
        type: string;
        tool_use_id: string;
        content: unknown;
        is_error?: boolean;
      }[];
    },
    async gateway(script: MessagesScript | MessagesStep[], options: AgentLoopOptions): Promise<MessagesGateway> {
      rig.upstream.setScript(script);
      const { logger, lines } = memoryLogger('warn');
      const app = express();
      app.use(express.json({ limit: '5mb' }));
      const loop = agentLoop({ logger, trellis: { mcp: { url: rig.mcp.url } }, ...options });
      app.use(loop);
      app.post(
        '/v1/messages',
        createProxyMiddleware({ target: rig.upstream.url, changeOrigin: true, on: { proxyReq: fixRequestBody } }),
      );
      closers.push(() => loop.close());
      const { url, close } = await listen(app);
      closers.push(close);
      return {
        url,
        anthropic: new Anthropic({ baseURL: url, apiKey: CLIENT_KEY, maxRetries: 0 }),
        aiSdk: createAnthropic({ baseURL: `${url}/v1`, apiKey: CLIENT_KEY }),
        loop,
        lines,
      };
    },
  };
  beforeEach(async () => {
    rig.mcp = await startMcpServer();
    rig.upstream = await startMessagesServer([{ text: 'hello' }], { apiKey: CLIENT_KEY });
    closers.push(
      () => rig.mcp.close(),
      () => rig.upstream.close(),
    );
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return rig;
}
