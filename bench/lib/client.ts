import { Pool } from 'undici';
import { CALLS_PER_TURN, MODEL, echoText, finalText, userPrompt } from './script';
import { sseData } from './sse';

/** `loop`: the whole 4-turn loop answers; `single`: one upstream turn (the proxy), whose answer is turn 1's tool calls. */
export type Kind = 'loop' | 'single';

export interface Sample {
  id: string;
  ok: boolean;
  ms: number;
  /** stream: time to the first content byte of the final answer (single: to the first event) */
  ttfbMs?: number;
  error?: string;
}

function turnOneOk(id: string, text: string): boolean {
  return Array.from({ length: CALLS_PER_TURN }, (_, call) => echoText(id, 1, call)).every((echo) =>
    text.includes(echo),
  );
}

/** The benchmark's client: one keep-alive pool per gateway; every answer is checked against the script. */
export class Client {
  private readonly pool: Pool;

  constructor(
    origin: string,
    readonly kind: Kind,
    connections = 2_200, // two waves of 1,000 parked loops at once
  ) {
    this.pool = new Pool(origin, {
      connections,
      keepAliveTimeout: 60_000,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
  }

  async loop(id: string, stream: boolean): Promise<Sample> {
    const started = performance.now();
    const sample = (error?: string, ttfbMs?: number): Sample => ({
      id,
      ok: !error,
      ms: performance.now() - started,
      ttfbMs,
      error,
    });
    try {
      const body = JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: userPrompt(id) }],
        ...(stream ? { stream: true } : {}),
      });
      const res = await this.pool.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (res.statusCode !== 200) return sample(`HTTP ${res.statusCode}: ${(await res.body.text()).slice(0, 300)}`);
      if (!stream) {
        const reply = (await res.body.json()) as {
          choices?: { message?: { content?: string; tool_calls?: unknown[] } }[];
        };
        const message = reply.choices?.[0]?.message;
        if (this.kind === 'single')
          return sample(turnOneOk(id, JSON.stringify(message?.tool_calls ?? [])) ? undefined : 'no turn-1 tool calls');
        return sample(
          message?.content === finalText(id)
            ? undefined
            : `wrong final text: ${JSON.stringify(message?.content)?.slice(0, 200)}`,
        );
      }
      let ttfbMs: number | undefined;
      let content = '';
      let events = '';
      for await (const data of sseData(res.body)) {
        if (data === '[DONE]') continue;
        if (this.kind === 'single') ttfbMs ??= performance.now() - started;
        events += data;
        const delta = JSON.parse(data).choices?.[0]?.delta;
        if (typeof delta?.content === 'string' && delta.content) {
          ttfbMs ??= performance.now() - started;
          content += delta.content;
        }
      }
      if (this.kind === 'single')
        return sample(turnOneOk(id, events) ? undefined : 'no turn-1 tool calls in the stream', ttfbMs);
      return sample(
        content === finalText(id)
          ? undefined
          : `wrong streamed text: ${JSON.stringify(content).slice(0, 200)} ${events.slice(0, 200)}`,
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
