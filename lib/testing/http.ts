import type http from 'node:http';

/** A request's whole body, as text. */
export async function readBody(req: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(typeof body === 'string' ? body : JSON.stringify(body));
}
