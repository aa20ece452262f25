import express from 'express';
import { request } from 'undici';
import { serve, upstreamOrigin } from '../lib/gateway';
import type { ChatReply, Transport } from '../lib/handloop';
import { handLoopHandler } from '../lib/handloop';

/** The physical floor of a loop: undici straight to the upstream, tools in-process. */
const url = `${upstreamOrigin()}/v1/chat/completions`;

async function post(body: object) {
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

const transport: Transport = {
  complete: async (body) => (await (await post(body)).json()) as ChatReply,
  stream: post,
};

const app = express();
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), handLoopHandler(transport));
serve(app);
