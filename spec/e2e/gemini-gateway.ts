import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startGeminiServer, type GeminiScript, type GeminiServer, type GeminiStep } from '../../fixtures/gemini-server';
import { agentLoop, type AgentLoopOptions } from '../../lib';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from '../helpers/memory-logger';
import { listen } from '../helpers/listen';

// The SDK's types are ES module ones; its CommonJS build (the `require` condition) is what runs here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require('@google/genai') as typeof GenAI;

export const CLIENT_KEY = 'AIzaSy-gemini-client-key';

export interface GeminiGateway {
  url: string;
  /** the official Google GenAI SDK, pointed at the gateway (it adds `/v1beta` itself) */
  genai: GenAI.GoogleGenAI;
  loop: AgentLoopMiddleware;
  lines: Record<string, unknown>[];
}

/**
 * The Gemini e2e rig: a real MCP server, the scripted Gemini upstream (which takes only the client's key), and a
 * gateway as a user builds one: express.json(), agentLoop, and http-proxy-middleware to the upstream on
 * POST /v1beta/models/... and /v1/models/... as the normal handler. Hooks close everything after each test.
 */
export function geminiRig() {
  const closers: (() => Promise<unknown>)[] = [];
  const rig = {
    mcp: undefined as unknown as McpFixtureServer,
    upstream: undefined as unknown as GeminiServer,
    /** the parts of the upstream's `index`-th request's last content */
    lastParts: (index: number) => {
      const { contents } = rig.upstream.requests[index].body;
      return contents[contents.length - 1].parts;
    },
    async gateway(script: GeminiScript | GeminiStep[], options: AgentLoopOptions): Promise<GeminiGateway> {
      rig.upstream.setScript(script);
      const { logger, lines } = memoryLogger('warn');
      const app = express();
      app.use(express.json({ limit: '5mb' }));
      const loop = agentLoop({ logger, trellis: { mcp: { url: rig.mcp.url } }, ...options });
      app.use(loop);
      app.post(
        /^\/v1(beta)?\/models\//,
        createProxyMiddleware({ target: rig.upstream.url, changeOrigin: true, on: { proxyReq: fixRequestBody } }),
      );
      closers.push(() => loop.close());
      const { url, close } = await listen(app);
      closers.push(close);
      return {
        url,
        // jest's sandbox hides Node's own fetch dispatcher from the SDK: it gets the sandbox's fetch to call with
        genai: new GoogleGenAI({
          apiKey: CLIENT_KEY,
          httpOptions: { baseUrl: url, fetch: (input, init) => fetch(input, init) },
        }),
        loop,
        lines,
      };
    },
  };
  beforeEach(async () => {
    rig.mcp = await startMcpServer();
    rig.upstream = await startGeminiServer([{ text: 'hello' }], { apiKey: CLIENT_KEY });
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
