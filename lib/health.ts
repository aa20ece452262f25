import type { Express, NextFunction, Request, Response } from 'express';
import type { AgentLoopMiddleware } from './middleware';

const PROBE_TIMEOUT_MS = 5000;

/** Whether the upstream answered at least once: any proxied reply below 500, else a `GET {url}/models` probe. */
export class UpstreamHealth {
  private answered = false;
  private reason = 'no answer yet';

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  saw(status: number): void {
    if (status < 500) this.answered = true;
    else this.reason = `HTTP ${status}`;
  }

  /** undefined once the upstream answered; until then, why it has not */
  async down(signal: AbortSignal): Promise<string | undefined> {
    if (this.answered) return undefined;
    try {
      const reply = await fetch(`${this.url.replace(/\/$/, '')}/models`, { headers: this.headers, signal });
      await reply.body?.cancel();
      this.saw(reply.status);
    } catch (error) {
      const { message, cause } = error as Error & { cause?: Error };
      this.reason = cause?.message ?? message;
    }
    return this.answered ? undefined : this.reason;
  }
}

/**
 * `/healthz`: the process answers (live). `/readyz`: every binding's Trellis listed its tools at least once and
 * the upstream answered, else 503. Both say what is down: `{ ok, down: { 'trellis <binding>': reason, upstream: reason } }`.
 */
export function healthRoutes(app: Express, loop: AgentLoopMiddleware, upstream: UpstreamHealth): void {
  app.get('/healthz', function live(_req: Request, res: Response) {
    res.json({ ok: true, down: {} });
  });
  app.get('/readyz', function ready(_req: Request, res: Response, next: NextFunction) {
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    Promise.all([loop.ready(signal), upstream.down(signal)])
      .then(([down, upstreamDown]) => {
        if (upstreamDown !== undefined) down.upstream = upstreamDown;
        const ok = Object.keys(down).length === 0;
        res.status(ok ? 200 : 503).json({ ok, down });
      })
      .catch(next);
  });
}
