import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { openAiError } from '../shared/openai-error';
import type { UpstreamHealth } from './health';
import { setUpstreamKey } from './upstream-key';

function upstreamFailure(error: Error, _req: IncomingMessage, res: ServerResponse | Socket): void {
  if (!('writeHead' in res) || res.headersSent) return void res.end();
  // JSON.parse takes nesting that JSON.stringify cannot give back: such a body cannot be forwarded, by its sender's
  // doing.
  const [status, body] =
    error instanceof RangeError
      ? [
          400,
          openAiError(
            `the request body cannot be forwarded: ${error.message} (nested too deeply?)`,
            'invalid_request_error',
          ),
        ]
      : [502, openAiError(`upstream unreachable: ${error.message}`, 'upstream_error')];
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The proxy to the upstream: the normal handler, with the upstream's key in place of the client's. */
export function forwardingTo(
  target: string,
  agent: http.Agent,
  health: UpstreamHealth,
  apiKey: string | undefined,
  keyChecked: boolean,
) {
  return createProxyMiddleware({
    target,
    changeOrigin: true,
    // Without an agent, http-proxy opens a new upstream connection per request: every loop turn would pay a connect.
    // Without a `timeout`, Node's agent ignores the upstream's `Keep-Alive: timeout=N` and keeps an idle connection
    // until the upstream closes it: a turn sent on it as it closes gets a 504, and a first turn then falls through.
    agent,
    on: {
      proxyReq(proxyReq, req, res) {
        // a key the gateway checked never travels upstream, whether or not there is an upstream key to send instead
        if (apiKey !== undefined || keyChecked) setUpstreamKey(proxyReq, req, apiKey);
        fixRequestBody(proxyReq, req);
        // http-proxy cancels only on 'aborted', which Node does not emit once the body was read: without this, a
        // client that went away (or a cancelled loop turn) would leave the upstream generating.
        res.on('close', () => res.writableFinished || proxyReq.destroy());
      },
      proxyRes: (proxyRes) => health.saw(proxyRes.statusCode ?? 502),
      error: upstreamFailure,
    },
  });
}
