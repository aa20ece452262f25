import express from 'express';
import { request } from 'undici';
import { serve, upstreamOrigin } from '../lib/gateway';
import type { GeminiReply, GeminiTransport } from '../lib/gemini-handloop';
import { geminiHandLoopHandler } from '../lib/gemini-handloop';
import type { ChatReply, Transport } from '../lib/handloop';
import { handLoopHandler } from '../lib/handloop';
import type { MessagesReply, MessagesTransport } from '../lib/messages-handloop';
import { anthropicHeaders, messagesHandLoopHandler } from '../lib/messages-handloop';

/** The physical floor of a loop: undici straight to the upstream (each wire's own), tools in-process. */
async function post(url: string, body: object, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
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
const messagesUrl = `${process.env.BENCH_UPSTREAM_MESSAGES}/v1/messages`;
const messages: MessagesTransport = {
  complete: async (body, req) => (await (await post(messagesUrl, body, anthropicHeaders(req))).json()) as MessagesReply,
  stream: (body, req) => post(messagesUrl, body, anthropicHeaders(req)),
};

const app = express();
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), handLoopHandler(transport));
app.post('/v1/messages', express.json({ limit: '1mb' }), messagesHandLoopHandler(messages));
app.post(/^\/v1beta\/models\//, express.json({ limit: '1mb' }), geminiHandLoopHandler(gemini));
serve(app);
