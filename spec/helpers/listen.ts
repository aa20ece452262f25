import http from 'node:http';
import OpenAI from 'openai';
import { onLoopback } from '../../lib/testing/loopback';

export interface Listening {
  url: string;
  /** the official openai client, pointed at this server's `/v1` */
  client: OpenAI;
  close(): Promise<void>;
}

/** Serves `app` on a loopback port, as `app.listen(0)` does in production. */
export async function listen(app: http.RequestListener): Promise<Listening> {
  const { origin: url, close } = await onLoopback(http.createServer(app));
  return {
    url,
    client: new OpenAI({ baseURL: `${url}/v1`, apiKey: 'client-key', maxRetries: 0 }),
    close,
  };
}

export interface RawExchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** the body as it arrived, with the time each part came */
  parts: { at: number; text: string }[];
  body: string;
}

/** POSTs `body` and reads the raw reply, SSE comments included, which no SDK shows. */
export function postRaw(url: string, body: unknown): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const parts: RawExchange['parts'] = [];
        res.setEncoding('utf8');
        res.on('data', (text: string) => parts.push({ at: Date.now(), text }));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            parts,
            body: parts.map((part) => part.text).join(''),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
