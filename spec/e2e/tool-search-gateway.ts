import Anthropic from '@anthropic-ai/sdk';
import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { catalogOf } from '../../fixtures/tool-catalog/catalog';
import { startMessagesServer, type MessagesServer } from '../../fixtures/messages-server';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startResponsesServer, type ResponsesServer } from '../../fixtures/responses-server';
import { agentLoop, localTrellis, type AgentLoopOptions } from '../../lib';
import { memoryLogger } from '../helpers/memory-logger';
import { listen } from '../helpers/listen';

export const NOT_LOADED = "tool error: 'merge_pull_request' is not loaded: call tool_search first";
export const QUERY = 'create a pull request';

/** A 300-tool Trellis from real MCP servers' listings, each tool answering `ran <name>`, every call recorded. */
export function catalogTrellis(calls: string[]) {
  return localTrellis(
    catalogOf(300).map(({ name, description, inputSchema }) => ({
      name,
      ...(description === undefined ? {} : { description }),
      inputSchema,
      handler: () => {
        calls.push(name);
        return `ran ${name}`;
      },
    })),
  );
}

/** The gateway a user builds, on all three wires: express.json(), agentLoop, and a proxy per wire to its upstream. */
export function rig() {
  const closers: (() => Promise<unknown>)[] = [];
  const state = {
    calls: [] as string[],
    model: undefined as unknown as ModelServer,
    responses: undefined as unknown as ResponsesServer,
    messages: undefined as unknown as MessagesServer,
    async gateway(options: Partial<AgentLoopOptions> = {}) {
      const app = express();
      app.use(express.json({ limit: '5mb' }));
      const loop = agentLoop({
        logger: memoryLogger('error').logger,
        trellis: catalogTrellis(state.calls),
        bindings: [{ name: 'catalog', match: { model: '*' }, hierarchy: 'from-trellis' }],
        ...options,
      });
      app.use(loop);
      for (const [path, upstream] of [
        ['/v1/chat/completions', state.model.url],
        ['/v1/responses', state.responses.url],
        ['/v1/messages', state.messages.url],
      ]) {
        app.post(
          path,
          createProxyMiddleware({ target: upstream, changeOrigin: true, on: { proxyReq: fixRequestBody } }),
        );
      }
      closers.push(() => loop.close());
      const listening = await listen(app);
      closers.push(listening.close);
      return {
        openai: listening.client,
        anthropic: new Anthropic({ baseURL: listening.url, apiKey: 'client-key', maxRetries: 0 }),
      };
    },
  };
  beforeEach(async () => {
    state.calls = [];
    [state.model, state.responses, state.messages] = await Promise.all([
      startModelServer(),
      startResponsesServer(),
      startMessagesServer(),
    ]);
    closers.push(
      () => state.model.close(),
      () => state.responses.close(),
      () => state.messages.close(),
    );
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return state;
}

export const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
export const names = (tools: unknown) =>
  (tools as { name?: string; function?: { name: string } }[]).map((tool) => tool.name ?? tool.function?.name);

/** Each later request's tools begin with the earlier request's, byte for byte: the provider's prompt cache holds. */
export function expectAppendedOnly(toolLists: unknown[]) {
  for (let i = 1; i < toolLists.length; i++)
    expect(JSON.stringify(toolLists[i]).startsWith(JSON.stringify(toolLists[i - 1]).slice(0, -1))).toBe(true);
}

/** Codex's own tools, as it sends them to any backend. */
export const codexTools = {
  shell: {
    type: 'function',
    name: 'shell',
    description: 'Runs a shell command and returns its output',
    parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } },
    strict: false,
  },
  patch: {
    type: 'function',
    name: 'apply_patch',
    description: 'Applies a patch to files',
    parameters: { type: 'object', properties: { input: { type: 'string' } } },
    strict: false,
  },
  plan: {
    type: 'function',
    name: 'update_plan',
    description: 'Updates the task plan',
    parameters: { type: 'object' },
    strict: false,
  },
};
