import http from 'node:http';
import https from 'node:https';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError } from 'axios';
import { onAbort } from '../shared/signals';
import { replyTooLong } from '../shared/held-bytes';

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

interface Target {
  secure: boolean;
  options: http.RequestOptions;
}

function targetOf(url: string): Target {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'https:';
  return {
    secure,
    options: {
      hostname: parsed.hostname.replace(/^\[|\]$/g, ''),
      port: parsed.port || (secure ? 443 : 80),
      path: parsed.pathname + parsed.search,
    },
  };
}

/**
 * The reply's body as text; past `maxBytes` (axios' `maxContentLength`, -1 for none) the reply is cut off and the turn
 * fails.
 */
function collected(response: http.IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (maxBytes < 0 || read <= maxBytes) chunks.push(chunk);
      else response.destroy(replyTooLong(maxBytes));
    });
    response.once('end', () => {
      try {
        resolve(Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        reject(error);
      }
    });
    response.once('error', reject);
  });
}

/** Destroys `request` when `signal` aborts, until the request closes (after its response's end, or on an error). */
function cancelOnAbort(request: http.ClientRequest, signal: AbortSignal): void {
  request.once(
    'close',
    onAbort(signal, () =>
      request.destroy(
        Object.assign(new Error('The operation was aborted'), {
          name: 'AbortError',
          code: 'ABORT_ERR',
          cause: signal.reason,
        }),
      ),
    ),
  );
}

/**
 * The self-call's axios adapter: one request on a keep-alive agent, its reply as text, or as the stream itself for
 * `responseType: 'stream'`; every status resolves. axios' own `http` adapter does much more per request than a call
 * to the app's own front door needs (redirects, proxies, decompression, progress, size limits, keep-alive set on
 * the socket again): about a third of the self-call's client-side CPU. The front door's URL is parsed once, and
 * the signal is watched here: `http.request`'s own `signal` option ties a stream-lifetime watcher to every request.
 */
export function selfCallAdapter(agents: Agents): AxiosAdapter {
  let last: { url: string; target: Target } | undefined;
  return (config: InternalAxiosRequestConfig) =>
    new Promise<AxiosResponse>((resolve, reject) => {
      const url = config.url as string;
      if (last?.url !== url) last = { url, target: targetOf(url) };
      const { secure, options } = last.target;
      const body = typeof config.data === 'string' ? config.data : '';
      const headers = {
        ...config.headers.toJSON(),
        'content-length': Buffer.byteLength(body),
      } as http.OutgoingHttpHeaders;
      // `httpAgent` is the in-process transport's: its connections are in memory, TLS or not.
      const inProcess = config.httpAgent as http.Agent | undefined;
      const agent = inProcess ?? (secure ? agents.https : agents.http);
      const request = (secure && !inProcess ? https : http).request({
        ...options,
        method: (config.method ?? 'get').toUpperCase(),
        agent,
        headers,
      });
      const fail = (error: Error & { code?: string }) => reject(AxiosError.from(error, error.code, config, request));
      request.once('error', fail);
      if (config.signal) cancelOnAbort(request, config.signal as AbortSignal);
      request.once('response', (response) => {
        const answer = (data: unknown): AxiosResponse => ({
          data,
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: response.headers,
          config,
          request,
        });
        if (config.responseType === 'stream') resolve(answer(response));
        else collected(response, config.maxContentLength ?? -1).then((text) => resolve(answer(text)), fail);
      });
      request.end(body);
    });
}
