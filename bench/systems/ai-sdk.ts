import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelMessage } from 'ai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { Request, Response } from 'express';
import express from 'express';
import { echo, echoDescription, echoSchema } from '../lib/echo';
import { serve, upstreamOrigin } from '../lib/gateway';
import { SseWriter, completionJson, sendJson } from '../lib/respond';
import { TURNS } from '../lib/script';

/** The Vercel AI SDK: generateText / streamText with a step limit, the result wrapped in a chat completion. */
const provider = createOpenAICompatible({ name: 'bench', baseURL: `${upstreamOrigin()}/v1`, apiKey: 'bench' });
const tools = {
  echo: tool({
    description: echoDescription,
    inputSchema: jsonSchema<{ text: string }>(echoSchema),
    execute: async ({ text }) => echo(text),
  }),
};

async function aiSdk(req: Request, res: Response): Promise<void> {
  const settings = {
    model: provider.chatModel(req.body.model),
    messages: req.body.messages as ModelMessage[],
    tools,
    stopWhen: stepCountIs(TURNS),
  };
  if (!req.body.stream) {
    try {
      const result = await generateText(settings);
      sendJson(res, 200, completionJson(result.text, req.body.model));
    } catch (error) {
      sendJson(res, 502, { error: { message: (error as Error).message } });
    }
    return;
  }
  const writer = new SseWriter(res, req.body.model);
  let failure: unknown;
  const result = streamText({ ...settings, onError: ({ error }) => void (failure = error) });
  for await (const text of result.textStream) writer.content(text);
  if (failure) writer.fail(String((failure as Error).message ?? failure));
  else writer.end();
}

const app = express();
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), aiSdk);
serve(app);
