import type { ServerResponse } from 'node:http';
import { MODEL } from './script';

let counter = 0;

/** A chat.completion carrying the final text, for systems whose result is not one already. */
export function completionJson(text: string, model = MODEL): Record<string, unknown> {
  return {
    id: `chatcmpl-bench-${++counter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** Writes an OpenAI-style SSE stream; the head goes out with the first write. */
export class SseWriter {
  private readonly id = `chatcmpl-bench-${++counter}`;
  private readonly created = Math.floor(Date.now() / 1000);
  constructor(
    private readonly res: ServerResponse,
    private readonly model = MODEL,
  ) {}

  private head(): void {
    if (!this.res.headersSent)
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  }

  /** forwards one upstream `data:` payload as it is */
  raw(data: string): void {
    this.head();
    this.res.write(`data: ${data}\n\n`);
  }

  content(text: string): void {
    if (text) this.raw(this.chunk({ content: text }, null));
  }

  end(finishReason = 'stop'): void {
    this.raw(this.chunk({}, finishReason));
    this.res.end('data: [DONE]\n\n');
  }

  /** an error after the head: an error event, then the end */
  fail(message: string): void {
    if (!this.res.headersSent) return sendJson(this.res, 502, { error: { message } });
    this.raw(JSON.stringify({ error: { message } }));
    this.res.end('data: [DONE]\n\n');
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null): string {
    const { id, created, model } = this;
    return JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  }
}
