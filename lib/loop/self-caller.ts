import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import axios, { type AxiosInstance, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { Request } from 'express';
import { INTERNAL_HEADER, signMarker } from '../self-call/marker';
import { type Agents, selfCallAdapter } from '../self-call/axios-adapter';
import { frontDoorOf } from '../self-call/front-door';
import { InProcessAgents } from '../self-call/in-process';
import {
  dropIdleConnections,
  IDLE_SOCKET_MS,
  IdleBounds,
  lostOnPooledConnection,
} from '../self-call/pooled-connection';
import type { SelfCallTransport } from '../types';
import type { TurnReader, TurnResult } from './wire';
import type { TextSink } from './reply';
import { errorBody, errorMessage, ignoreText, untilAborted } from './turn-stream';
import { parsedOrUndefined } from '../shared/parsed-json';
import type { TurnRequest } from './turn-body';

export interface SelfCall {
  /** the front door's URL, taken when the loop starts: a socket that closed no longer knows its address */
  url: string;
  /** the loop's signed marker, the same on every turn (see `marker()`) */
  marker: string;
  signal: AbortSignal;
  /** set when the turns go into the server that took the request in this process, without a socket */
  agent?: http.Agent;
  /** the turn span's `traceparent` (and `tracestate`): replaces the client's */
  trace?: Record<string, string>;
  /** headers the wire's upstream needs, copied from the client's request beside `forwardHeaders` */
  upstreamHeaders?: readonly string[];
}

/** The base URL of the socket that took the request: the app's own front door, under supertest too. */
function frontDoorUrl(req: Request): string {
  const socket = req.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice(7);
  if (host.includes(':')) host = `[${host}]`;
  return `${(socket as TLSSocket).encrypted ? 'https' : 'http'}://${host}:${socket.localPort}`;
}

function reasonOf(error: Error, signal: AbortSignal): string {
  return signal.aborted ? String(signal.reason?.message ?? 'aborted') : error.message;
}

function upstreamReason(status: number, data: unknown): string {
  const message = errorMessage(data);
  return message === undefined ? `HTTP ${status}` : `HTTP ${status}: ${message}`;
}

/** Every turn re-enters the app through its own front door, marked internal so no injector (nor the loop) reruns. */
export class SelfCaller {
  private readonly http: AxiosInstance;
  private readonly agents: Agents = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  private readonly inProcess = new InProcessAgents();
  private readonly idleBounds = new IdleBounds([this.agents.http, this.agents.https]);

  constructor(
    private readonly key: Buffer,
    private readonly forwardHeaders: string[],
    /** what one turn may read of the model's reply (`maxReplyBytes`) */
    private readonly maxReplyBytes: number,
    private readonly selfUrl?: string,
    private readonly transport: SelfCallTransport = 'in-process',
  ) {
    // No transforms: the body is already the JSON string (axios would parse it again to check it) and the reply is
    // parsed once, here. Every status resolves: a failed turn's status and error body make the loop's reason.
    // `maxContentLength` bounds a JSON reply; a streamed one is bounded as it is read.
    this.http = axios.create({
      adapter: selfCallAdapter(this.agents),
      validateStatus: null,
      transformRequest: [],
      transformResponse: [],
      maxContentLength: maxReplyBytes,
    });
    // axios merges its instance defaults into every request's config: keep only what this client uses. No default
    // headers (each request brings all of its own, so none are deep-merged per method), no `transitional` (checked
    // per request), nothing for browsers (xsrf) or data: URLs (env).
    const defaults = this.http.defaults as unknown as Record<string, unknown>;
    defaults.headers = {};
    for (const unused of ['transitional', 'xsrfCookieName', 'xsrfHeaderName', 'env']) delete defaults[unused];
  }

  /**
   * One turn through the front door, its reply read by the wire's `reader`. `onText` gets the reply's text: delta
   * by delta as it arrives when `request.stream` is true (the reply is then read as an SSE stream), else all at once.
   */
  async turn<Output>(
    req: Request,
    request: TurnRequest,
    call: SelfCall,
    reader: TurnReader<Output>,
    onText: TextSink = ignoreText,
  ): Promise<TurnResult<Output>> {
    const streaming = request.stream;
    const response = await this.send(call, {
      method: 'post',
      url: call.url,
      httpAgent: call.agent,
      data: request.json,
      headers: this.headersFor(req, call, streaming),
      signal: call.signal,
      responseType: streaming ? 'stream' : 'text',
    });
    if (response.status < 200 || response.status > 299) {
      throw new Error(
        upstreamReason(
          response.status,
          streaming ? await errorBody(untilAborted(response.data, call.signal)) : parsedOrUndefined(response.data),
        ),
      );
    }
    if (streaming) {
      return reader
        .stream(untilAborted(response.data, call.signal), onText, this.maxReplyBytes)
        .catch((error: Error) => {
          throw new Error(reasonOf(error, call.signal));
        });
    }
    const result = reader.json(parsedOrUndefined(response.data));
    if (result.text !== '') await onText(result.text);
    return result;
  }

  /**
   * Sends one turn; a turn lost on a pooled connection the front door was closing (before any byte of the reply) is
   * sent once more, on a new connection: a loop must not fall through because of its own connection.
   */
  private async send(call: SelfCall, config: AxiosRequestConfig): Promise<AxiosResponse> {
    // request(), not post(): post() merges its arguments into a config of its own before request() merges again.
    try {
      return await this.http.request(config);
    } catch (error) {
      if (!lostOnPooledConnection(error, call.signal)) throw new Error(reasonOf(error as Error, call.signal));
      dropIdleConnections(call.agent ?? (call.url.startsWith('https:') ? this.agents.https : this.agents.http));
      return this.http.request(config).catch((again: Error) => {
        throw new Error(reasonOf(again, call.signal));
      });
    }
  }

  private headersFor(req: Request, call: SelfCall, streaming: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: streaming ? 'text/event-stream' : 'application/json',
      // Without this header any coding is acceptable (RFC 9110), and the reply is read as it comes, uncompressed.
      'accept-encoding': 'identity',
      [INTERNAL_HEADER]: call.marker,
    };
    for (const name of call.upstreamHeaders ? [...this.forwardHeaders, ...call.upstreamHeaders] : this.forwardHeaders) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    return call.trace ? Object.assign(headers, call.trace) : headers;
  }

  /** The marker of every self-call of one loop, valid until `expiresAt` (ms). */
  marker(loopId: string, expiresAt: number): string {
    return signMarker(this.key, loopId, expiresAt);
  }

  /** The URL of the front door that took `req`. */
  urlFor(req: Request): string {
    return (this.selfUrl ?? frontDoorUrl(req)) + req.originalUrl;
  }

  /**
   * The agent whose connections lead into the server that took `req`, in this process; undefined for the socket
   * transport: with `selfUrl`, `selfCall: 'socket'`, or a request whose server cannot be found.
   */
  agentFor(req: Request): http.Agent | undefined {
    if (this.selfUrl !== undefined) return undefined;
    const front = frontDoorOf(req);
    if (this.transport === 'in-process') return front && this.inProcess.agentFor(front);
    if (front) this.idleBounds.know(front);
    return undefined;
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.inProcess.destroy();
  }
}
