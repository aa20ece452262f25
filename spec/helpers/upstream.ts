import http from 'node:http';
import { onLoopback } from '../../lib/testing/loopback';
import { createGateway } from '../../lib/gateway/gateway';
import type { GatewayConfig } from '../../lib/gateway/options';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

export interface Seen {
  method: string;
  url: string;
  authorization?: string;
  apiKey?: string;
}

/** An upstream that answers every request with `{}` and records it: what the gateway forwarded, and with which key. */
export async function recordingUpstream(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({
      method: req.method!,
      url: req.url!,
      authorization: req.headers.authorization,
      apiKey: req.headers['x-api-key'] as string | undefined,
    });
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  const { origin, close } = await onLoopback(server);
  return { url: `${origin}/v1`, seen, close };
}

/** `createGateway(config)` on a loopback port. */
export async function serveGateway(config: GatewayConfig): Promise<{ port: number; close(): Promise<void> }> {
  const { port, close } = await onLoopback(http.createServer(createGateway({ logger: quiet, ...config })));
  return { port, close };
}

/** One request with its path exactly as given: no client library normalises it first. */
export function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }> {
  return new Promise((resolve, reject) => {
    const body =
      method === 'GET' || method === 'DELETE' ? undefined : '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: res.headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
