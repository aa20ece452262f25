import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import axios, { type AxiosInstance } from 'axios';
import type { Request } from 'express';
import { INTERNAL_HEADER, signMarker } from '../internal';
import type { ChatCompletion } from '../types';

export class SelfCallError extends Error {
  override readonly name = 'SelfCallError';
}

export interface SelfCall {
  loopId: string;
  turn: number;
  expiresAt: number;
  signal: AbortSignal;
}

/** The base URL of the socket that took the request: the app's own front door, under supertest too. */
function frontDoor(req: Request): string {
  const socket = req.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice(7);
  if (host.includes(':')) host = `[${host}]`;
  return `${(socket as TLSSocket).encrypted ? 'https' : 'http'}://${host}:${socket.localPort}`;
}

function upstreamReason(status: number, data: unknown): string {
  const message = (data as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? `HTTP ${status}: ${message}` : `HTTP ${status}`;
}

/** Every turn re-enters the app through its own front door, marked internal so no injector (nor the loop) reruns. */
export class SelfCaller {
  private readonly http: AxiosInstance;
  private readonly agents = { httpAgent: new http.Agent({ keepAlive: true }), httpsAgent: new https.Agent({ keepAlive: true }) };

  constructor(
    private readonly key: Buffer,
    private readonly forwardHeaders: string[],
    private readonly selfUrl?: string,
  ) {
    // maxRedirects 0 also keeps axios from wrapping every request in follow-redirects.
    this.http = axios.create({ ...this.agents, maxRedirects: 0, validateStatus: null, proxy: false });
  }

  async complete(req: Request, body: Record<string, unknown>, call: SelfCall): Promise<ChatCompletion> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      [INTERNAL_HEADER]: signMarker(this.key, call.loopId, call.turn, call.expiresAt),
    };
    for (const name of this.forwardHeaders) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const url = (this.selfUrl ?? frontDoor(req)) + req.originalUrl;
    const response = await this.http
      .post(url, JSON.stringify(body), { headers, signal: call.signal })
      .catch((error: Error) => {
        throw new SelfCallError(call.signal.aborted ? String(call.signal.reason?.message ?? 'aborted') : error.message);
      });
    if (response.status < 200 || response.status > 299) throw new SelfCallError(upstreamReason(response.status, response.data));
    const completion = response.data as ChatCompletion;
    if (typeof completion !== 'object' || completion === null || !completion.choices?.[0]?.message) {
      throw new SelfCallError('the reply is not a chat completion');
    }
    return completion;
  }

  close(): void {
    this.agents.httpAgent.destroy();
    this.agents.httpsAgent.destroy();
  }
}
