import express from 'express';
import { request } from 'undici';
import { serve, upstreamOrigin } from '../lib/gateway';
import type { GeminiReply, GeminiTransport } from '../lib/gemini-handloop';
import { geminiHandLoopHandler } from '../lib/gemini-handloop';
import type { ChatReply, Transport } from '../lib/handloop';
import { handLoopHandler } from '../lib/handloop';

/** The physical floor of a loop: undici straight to the upstream (chat's, or Gemini's), tools in-process. */
async function post(url: string, body: object) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`upstream answered ${res.statusCode}`);
  }
  return res.body;
}

const chatUrl = `${upstreamOrigin()}/v1/chat/completions`;
const transport: Transport = {
  complete: async (body) => (await (await post(chatUrl, body)).json()) as ChatReply,
  stream: (body) => post(chatUrl, body),
};
const gemini: GeminiTransport = {
  complete: async (path, body) =>
    (await (await post(`${process.env.BENCH_UPSTREAM_GEMINI}${path}`, body)).json()) as GeminiReply,
  stream: (path, body) => post(`${process.env.BENCH_UPSTREAM_GEMINI}${path}`, body),
};

const app = express();
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), handLoopHandler(transport));
app.post(/^\/v1beta\/models\//, express.json({ limit: '1mb' }), geminiHandLoopHandler(gemini));
serve(app);
