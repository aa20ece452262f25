import { Pool } from 'undici';
import type { Sample } from './client';
import { MODEL, finalText, userPrompt } from './script';
import { sseData } from './sse';

export type WireName = 'chat' | 'responses' | 'messages' | 'gemini';

type Parts = { candidates?: { content?: { parts?: { text?: string }[] } }[] };
const partsText = (reply: Parts) => reply.candidates?.[0]?.content?.parts?.map((part) => part.text ?? '').join('');

type Reply = Parts & {
  choices?: { message?: { content?: string } }[];
  output?: { type?: string; content?: { text?: string }[] }[];
  content?: { type?: string; text?: string }[];
};
type Event = Parts & {
  type?: string;
  delta?: string | { type?: string; text?: string };
  choices?: { delta?: { content?: string } }[];
};

/** Each wire's request for loop `id`, the final text its answer carries, and the text a streamed event adds to it. */
const WIRE: Record<
  WireName,
  {
    path: string;
    /** the path a stream is asked on (Gemini's), instead of `stream: true` in the body */
    streamPath?: string;
    headers: Record<string, string>;
    body(id: string): object;
    text(reply: Reply): string | undefined;
    delta(event: Event): string | undefined;
  }
> = {
  chat: {
    path: '/v1/chat/completions',
    headers: {},
    body: (id) => ({ model: MODEL, messages: [{ role: 'user', content: userPrompt(id) }] }),
    text: (reply) => reply.choices?.[0]?.message?.content,
    delta: (event) => event.choices?.[0]?.delta?.content,
  },
  responses: {
    path: '/v1/responses',
    headers: {},
    body: (id) => ({ model: MODEL, input: userPrompt(id) }),
    text: (reply) =>
      reply.output
        ?.filter((item) => item.type === 'message')
        .flatMap((item) => item.content ?? [])
        .map((part) => part.text)
        .join(''),
    delta: (event) =>
      event.type === 'response.output_text.delta' && typeof event.delta === 'string' ? event.delta : undefined,
  },
  messages: {
    path: '/v1/messages',
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'bench' },
    body: (id) => ({ model: MODEL, max_tokens: 256, messages: [{ role: 'user', content: userPrompt(id) }] }),
    text: (reply) =>
      reply.content
        ?.filter((block) => block.type === 'text')
        .map((block) => block.text)
        .join(''),
    delta: (event) =>
      event.type === 'content_block_delta' && typeof event.delta === 'object' && event.delta.type === 'text_delta'
        ? event.delta.text
        : undefined,
  },
  gemini: {
    path: `/v1beta/models/${MODEL}:generateContent`,
    streamPath: `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    headers: { 'x-goog-api-key': 'bench' },
    body: (id) => ({ contents: [{ role: 'user', parts: [{ text: userPrompt(id) }] }] }),
    text: partsText,
    delta: (event) => partsText(event) || undefined,
  },
};

/** A plain-HTTP client of one wire: one 4-turn loop per call, JSON or streamed, its final text checked against the script. */
export class WireClient {
  private readonly pool: Pool;

  constructor(
    origin: string,
    readonly wire: WireName,
    connections = 4,
  ) {
    this.pool = new Pool(origin, {
      connections,
      keepAliveTimeout: 60_000,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
  }

  /** `stream`: the answer as the wire's event stream; `ttfbMs` is then the time to its first text (the final answer's). */
  async loop(id: string, stream = false): Promise<Sample> {
    const started = performance.now();
    const sample = (error?: string, ttfbMs?: number): Sample => ({
      id,
      ok: !error,
      ms: performance.now() - started,
      ttfbMs,
      error,
    });
    const { path, streamPath, headers, body, text, delta } = WIRE[this.wire];
    try {
      const res = await this.pool.request({
        path: stream ? (streamPath ?? path) : path,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ ...body(id), ...(stream && !streamPath ? { stream: true } : {}) }),
      });
      if (res.statusCode !== 200) return sample(`HTTP ${res.statusCode}: ${(await res.body.text()).slice(0, 300)}`);
      if (!stream) {
        const final = text((await res.body.json()) as Reply);
        return sample(
          final === finalText(id) ? undefined : `wrong final text: ${JSON.stringify(final)?.slice(0, 200)}`,
        );
      }
      let ttfbMs: number | undefined;
      let content = '';
      for await (const data of sseData(res.body)) {
        if (data === '[DONE]') continue;
        const added = delta(JSON.parse(data) as Event);
        if (!added) continue;
        ttfbMs ??= performance.now() - started;
        content += added;
      }
      return sample(
        content === finalText(id) ? undefined : `wrong streamed text: ${JSON.stringify(content).slice(0, 200)}`,
        ttfbMs,
      );
    } catch (error) {
      return sample(`request failed: ${(error as Error).message}`);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
