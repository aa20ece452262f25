import http from 'node:http';
import https from 'node:https';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError } from 'axios';

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

function collected(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.once('error', reject);
  });
}

/**
 * The self-call's axios adapter: one request on a keep-alive agent, its reply as text, or as the stream itself for
 * `responseType: 'stream'`; every status resolves. axios' own `http` adapter does much more per request than a call
 * to the app's own front door needs (redirects, proxies, decompression, progress, size limits, keep-alive set on
 * the socket again): about a third of the self-call's client-side CPU.
 */
export function frontDoorAdapter(agents: Agents): AxiosAdapter {
  return (config: InternalAxiosRequestConfig) =>
    new Promise<AxiosResponse>((resolve, reject) => {
      const url = new URL(config.url as string);
      const secure = url.protocol === 'https:';
      const body = typeof config.data === 'string' ? config.data : '';
      const headers = { ...config.headers.toJSON(), 'content-length': Buffer.byteLength(body) } as http.OutgoingHttpHeaders;
      const request = (secure ? https : http).request(url, {
        method: (config.method ?? 'get').toUpperCase(),
        agent: secure ? agents.https : agents.http,
        headers,
        signal: config.signal as AbortSignal | undefined,
      });
      const fail = (error: Error & { code?: string }) => reject(AxiosError.from(error, error.code, config, request));
      request.once('error', fail);
      request.once('response', (response) => {
        const answer = (data: unknown): AxiosResponse => ({ data, status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers: response.headers, config, request });
        if (config.responseType === 'stream') resolve(answer(response));
        else collected(response).then((text) => resolve(answer(text)), fail);
      });
      request.end(body);
    });
}
