import type { AgentInputItem } from '@openai/agents';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import type { Request, Response } from 'express';
import express from 'express';
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { echo, echoDescription } from '../lib/echo';
import { serve, upstreamOrigin } from '../lib/gateway';
import { SseWriter, completionJson, sendJson } from '../lib/respond';
import { TURNS } from '../lib/script';

/** The OpenAI Agents SDK: run() with the chat-completions model class pointed at the upstream, tracing off. */
type Client = ConstructorParameters<typeof OpenAIChatCompletionsModel>[0];
/** the openai@7 that @openai/agents-openai itself depends on (the top-level openai is 6) */
const { OpenAI } = createRequire(require.resolve('@openai/agents-openai'))('openai') as {
  OpenAI: new (options: { baseURL: string; apiKey: string }) => Client;
};
/** the zod that @openai/agents reads its tools' parameters with (the bench's, not the project's copy) */
const { z } = createRequire(require.resolve('@openai/agents-core'))('zod') as typeof Zod;

setTracingDisabled(true);
const client = new OpenAI({ baseURL: `${upstreamOrigin()}/v1`, apiKey: 'bench' });
const echoTool = tool({
  name: 'echo',
  description: echoDescription,
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => echo(text),
});
const agents = new Map<string, Agent>();
const agentFor = (model: string) => {
  let agent = agents.get(model);
  if (!agent)
    agents.set(
      model,
      (agent = new Agent({ name: 'bench', model: new OpenAIChatCompletionsModel(client, model), tools: [echoTool] })),
    );
  return agent;
};

async function openaiAgents(req: Request, res: Response): Promise<void> {
  const agent = agentFor(req.body.model);
  const input = req.body.messages as AgentInputItem[];
  if (!req.body.stream) {
    try {
      const result = await run(agent, input, { maxTurns: TURNS });
      sendJson(res, 200, completionJson(String(result.finalOutput ?? ''), req.body.model));
    } catch (error) {
      sendJson(res, 502, { error: { message: (error as Error).message } });
    }
    return;
  }
  const writer = new SseWriter(res, req.body.model);
  try {
    const result = await run(agent, input, { maxTurns: TURNS, stream: true });
    for await (const text of result.toTextStream({ compatibleWithNodeStreams: true })) writer.content(String(text));
    await result.completed;
    if (result.error) throw result.error;
    writer.end();
  } catch (error) {
    writer.fail(String((error as Error).message ?? error));
  }
}

const app = express();
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), openaiAgents);
serve(app);
