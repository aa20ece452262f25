import http from 'node:http';
import path from 'node:path';
import { Child } from '../helpers/child';
import type { FixtureConfig } from '../../fixtures/reliability-config';
import { javascript } from '../helpers/javascript';

/** `npm run reliability` sets RELIABILITY_FULL=1: the sizes. Without it, sizes that suit CI on 2 cores. */
export const FULL = process.env.RELIABILITY_FULL === '1';

export function sized<T>(ci: T, full: T): T {
  return FULL ? full : ci;
}

/** Jest gives a scenario this long: full sizes take minutes. */
export const SCENARIO_TIMEOUT_MS = sized(120_000, 900_000);

/** One scenario's figures on one line, where `npm run reliability` (and CI's log) shows them. */
export function figure(line: string): void {
  process.stdout.write(`reliability ${line}\n`);
}

export const MB = 1024 * 1024;

export function megabytes(bytes: number): string {
  return `${bytes < 0 ? '-' : '+'}${Math.abs(bytes / MB).toFixed(1)} MB`;
}

export interface Memory {
  rss: number;
  peakRss: number;
  heapUsed: number;
  external: number;
}

export interface GatewayStats extends Memory {
  /** the active resources keeping the event loop alive, by kind (`Timeout`, `TCPSocketWrap`, ...) */
  handles: Record<string, number>;
  /** responses the gateway is writing, and requests it made that have not closed */
  inFlight: { served: number; requested: number };
  trellisStarts: number;
  lastTrellisStart: number;
  trellisActive: number;
  /** the most tool calls running at once since the last `resetPeaks` */
  peakTrellisActive: number;
  /** the most any response of the gateway held unsent since the last `resetPeaks` */
  peakUnsent: number;
  /** the longest the event loop was held up since the last `resetPeaks` */
  loopDelayMaxMs: number;
  prototypeKeys: number;
  prototypeKeysAtStart: number;
  /** markers the gateway logged as not verifying */
  forgedMarkers: number;
  /** the first few `agent-loop failed unexpectedly` log lines */
  failures: string[];
  problems: { unhandledRejections: number; uncaughtExceptions: number; unexpectedFailures: number; warnings: number };
}

/** `fixtures/reliability-gateway.ts` in a child process: a crash ends it and fails the scenario that caused it. */
export class ChildGateway {
  private constructor(
    private readonly child: Child,
    readonly url: string,
  ) {}

  static async start(config: FixtureConfig, env: Record<string, string> = {}): Promise<ChildGateway> {
    const file = path.join(__dirname, '..', '..', 'fixtures', 'reliability-gateway.ts');
    const child = new Child(file, javascript(file), { ...env, RELIABILITY_CONFIG: JSON.stringify(config) });
    const { url } = (await child.ready) as { url: string };
    return new ChildGateway(child, url);
  }

  stats(): Promise<GatewayStats> {
    return this.child.ask('stats');
  }

  /** memory after two full collections */
  gc(): Promise<Memory> {
    return this.child.ask('gc');
  }

  resetPeaks(): Promise<Memory> {
    return this.child.ask('resetPeaks');
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}

export const clientAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

export interface Exchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

export interface PostOptions {
  headers?: http.OutgoingHttpHeaders;
  /** the body as it goes on the wire; else JSON of `body` */
  raw?: string | Buffer;
  signal?: AbortSignal;
  /** the front door: `/v1/chat/completions` unless told */
  path?: string;
}

/** POSTs to the gateway's `/v1/chat/completions` (or `options.path`) and reads the whole answer. */
export function post(url: string, body: unknown, options: PostOptions = {}): Promise<Exchange> {
  const started = performance.now();
  const payload = options.raw ?? JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${options.path ?? '/v1/chat/completions'}`,
      {
        method: 'POST',
        agent: clientAgent,
        signal: options.signal,
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it holds or `timeoutMs` passed (generous: the machine is shared); returns whether it held. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await delay(everyMs);
  }
}
