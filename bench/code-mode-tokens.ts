import http from 'node:http';
import express from 'express';
import { countTokens } from 'gpt-tokenizer';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { catalogTools } from '../fixtures/tool-catalog/catalog';
import { agentLoop, localTrellis, skipWhenInternal, type AgentLoopOptions } from '../lib';
import { scriptedModel } from '../lib/testing';
import { onLoopback } from '../lib/testing/loopback';
import type { Tool } from '../lib/types';
import { ANSWER, STRATEGIES, resultOf, taskCalls, turnsFor, type Strategy, type TaskCall } from './lib/code-mode-task';

const silentLogger = { error() {}, warn() {}, info() {}, debug() {} };
type Body = Record<string, unknown>;
type Message = { role: string; content?: unknown; tool_calls?: { function: { name: string; arguments: string } }[] };

const counted = new Map<string, number>();
/** a text's tokens (o200k_base), remembered: a turn's tool definitions are the same texts turn after turn */
function tokens(text: string): number {
  let count = counted.get(text);
  if (count === undefined) counted.set(text, (count = countTokens(text)));
  return count;
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : '';

/**
 * The input tokens of one request as the model reads it: each tool definition as JSON (name, description,
 * parameters), each message's role, text and tool calls (name and arguments), 3 tokens a message and 3 for the
 * reply (OpenAI's count for chat messages).
 */
export function requestTokens(body: Body): number {
  const tools = (body.tools ?? []) as { function: unknown }[];
  let sum = 3;
  for (const tool of tools) sum += tokens(JSON.stringify(tool.function));
  for (const message of body.messages as Message[]) {
    sum += 3 + tokens(message.role) + tokens(textOf(message.content));
    for (const call of message.tool_calls ?? []) sum += tokens(call.function.name) + tokens(call.function.arguments);
  }
  return sum;
}

/** The catalog as one Trellis, each tool answering a plausible result; every call is recorded. */
function catalogTrellis(catalog: Tool[], ran: TaskCall[]) {
  return localTrellis(
    catalog.map(({ name, description, inputSchema }) => ({
      name,
      ...(description === undefined ? {} : { description }),
      inputSchema,
      handler: (args: Record<string, unknown>) => {
        ran.push({ name, arguments: args });
        return resultOf({ name, arguments: args }, ran.length);
      },
    })),
  );
}

const bindingFor = (strategy: Strategy): NonNullable<AgentLoopOptions['bindings']>[number] => ({
  name: 'catalog',
  match: { model: '*' },
  hierarchy: 'from-trellis',
  // a 30-call task, one call a turn, takes 31 turns
  maxTurns: 40,
  toolSearch: strategy.endsWith('tool search') ? { above: 64, maxResults: 5 } : false,
  codeMode: strategy.startsWith('code mode'),
});

export interface TaskRun {
  strategy: Strategy;
  calls: number;
  turns: number;
  inputTokens: number;
}

/** One task, end to end: the client's request through agentLoop, the scripted model, the catalog's tools. */
async function runTask(strategy: Strategy, catalog: Tool[], count: number, batch: number): Promise<TaskRun> {
  const calls = taskCalls(catalog, count);
  const model = scriptedModel(turnsFor(strategy, catalog, calls, batch));
  await model.ready;
  const ran: TaskCall[] = [];
  const loop = agentLoop({
    trellis: catalogTrellis(catalog, ran),
    bindings: [bindingFor(strategy)],
    logger: silentLogger,
  });
  const app = express();
  app.use(skipWhenInternal(express.json({ limit: '5mb' })));
  app.use(loop);
  app.post(
    '/v1/chat/completions',
    createProxyMiddleware({ target: new URL(model.url).origin, changeOrigin: true, on: { proxyReq: fixRequestBody } }),
  );
  const gateway = await onLoopback(http.createServer(app));
  try {
    const reply = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'bench',
        messages: [{ role: 'user', content: `Look up these ${count} items for the release review and sum them up.` }],
      }),
    });
    const answer = (await reply.json()) as { choices?: { message: { content: string } }[] };
    const said = answer.choices?.[0].message.content;
    if (said !== ANSWER) throw new Error(`${strategy}, ${count} calls: the answer was ${JSON.stringify(answer)}`);
    const wanted = JSON.stringify(calls.map((call) => call.name).sort());
    if (JSON.stringify(ran.map((call) => call.name).sort()) !== wanted)
      throw new Error(`${strategy}, ${count} calls: ran ${ran.map((call) => call.name).join(', ')}`);
    const inputTokens = model.requests.reduce((sum, request) => sum + requestTokens(request.body), 0);
    return { strategy, calls: count, turns: model.requests.length, inputTokens };
  } finally {
    await loop.close();
    await gateway.close();
    await model.close();
  }
}

const thousands = (value: number) => value.toLocaleString('en-US');
const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

/**
 * `npm run bench -- --code-mode [--batch N]`: input tokens and model turns of tasks of 3, 10 and 30 tool calls over the
 * whole catalog, four ways (see BENCHMARKS.md, "Code mode"); direct calls go `--batch` at a time (default 5).
 */
export async function benchCodeModeTokens(argv: string[], log: (line: string) => void): Promise<void> {
  const at = argv.indexOf('--batch');
  const batch = at >= 0 ? Math.max(1, Number(argv[at + 1]) || 1) : 5;
  const catalog = catalogTools();
  log(`code mode, tokens: ${catalog.length} tools, direct calls ${batch} a turn; tokens counted with o200k_base`);
  log(`| task | ${STRATEGIES.join(' | ')} | code mode / all tools | code mode + tool search / all tools |`);
  log(`| --- |${' ---: |'.repeat(STRATEGIES.length + 2)}`);
  for (const count of [3, 10, 30]) {
    const runs: TaskRun[] = [];
    for (const strategy of STRATEGIES) runs.push(await runTask(strategy, catalog, count, batch));
    const [all, , code, both] = runs.map((run) => run.inputTokens);
    const cells = runs.map((run) => `${thousands(run.inputTokens)} (${run.turns} turns)`);
    log(`| ${count} calls | ${cells.join(' | ')} | ${share(code, all)} | ${share(both, all)} |`);
  }
}

if (require.main === module) void benchCodeModeTokens(process.argv.slice(2), (line) => console.log(line));
