import http from 'node:http';
import https from 'node:https';
import type { Express, NextFunction, Request, Response } from 'express';
import type { AgentLoopMiddleware } from '../middleware';

const PROBE_TIMEOUT_MS = 5000;

/**
 * The status of a GET, its body left unread. Not fetch(): it refuses the ports the Fetch spec calls bad (6000,
 * 10080...), which the proxy reaches.
 */
function statusOf(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const probe = (target.protocol === 'https:' ? https : http).get(target, { headers, signal }, (reply) => {
      reply.destroy();
      resolve(reply.statusCode ?? 0);
    });
    probe.once('error', reject);
  });
}

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
      this.saw(await statusOf(`${this.url.replace(/\/$/, '')}/models`, this.headers, signal));
    } catch (error) {
      this.reason = (error as Error).message;
    }
    return this.answered ? undefined : this.reason;
  }
}

/**
 * `/healthz`: the process answers (live). `/readyz`: every binding's Trellis listed its tools at least once and
 * the upstream answered, else 503. Both say what is down: `{ ok, down: { 'trellis <binding>': reason, upstream: reason
 * } }`.
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
