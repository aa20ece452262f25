import { Pool } from 'undici';
import type { Sample } from './client';
import { MODEL, finalText, userPrompt } from './script';

export type WireName = 'chat' | 'responses' | 'messages';

type Reply = { choices?: { message?: { content?: string } }[]; output?: { type?: string; content?: { text?: string }[] }[]; content?: { type?: string; text?: string }[] };

/** Each wire's request for loop `id` and the final text its answer carries. */
const WIRE: Record<WireName, { path: string; headers: Record<string, string>; body(id: string): object; text(reply: Reply): string | undefined }> = {
  chat: {
    path: '/v1/chat/completions',
    headers: {},
    body: (id) => ({ model: MODEL, messages: [{ role: 'user', content: userPrompt(id) }] }),
    text: (reply) => reply.choices?.[0]?.message?.content,
  },
  responses: {
    path: '/v1/responses',
    headers: {},
    body: (id) => ({ model: MODEL, input: userPrompt(id) }),
    text: (reply) => reply.output?.filter((item) => item.type === 'message').flatMap((item) => item.content ?? []).map((part) => part.text).join(''),
  },
  messages: {
    path: '/v1/messages',
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'bench' },
    body: (id) => ({ model: MODEL, max_tokens: 256, messages: [{ role: 'user', content: userPrompt(id) }] }),
    text: (reply) => reply.content?.filter((block) => block.type === 'text').map((block) => block.text).join(''),
  },
};

/** A plain-HTTP client of one wire: one 4-turn loop per call, its final text checked against the script. */
export class WireClient {
  private readonly pool: Pool;

  constructor(
    origin: string,
    readonly wire: WireName,
  ) {
    this.pool = new Pool(origin, { connections: 4, keepAliveTimeout: 60_000 });
  }

  async loop(id: string): Promise<Sample> {
    const started = performance.now();
    const sample = (error?: string): Sample => ({ id, ok: !error, ms: performance.now() - started, error });
    const { path, headers, body, text } = WIRE[this.wire];
    const res = await this.pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body(id)) });
    if (res.statusCode !== 200) return sample(`HTTP ${res.statusCode}: ${(await res.body.text()).slice(0, 300)}`);
    const final = text((await res.body.json()) as Reply);
    return sample(final === finalText(id) ? undefined : `wrong final text: ${JSON.stringify(final)?.slice(0, 200)}`);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
