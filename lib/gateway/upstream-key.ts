import type { ClientRequest, IncomingMessage } from 'node:http';

/** The Messages API version a request goes with when its client named none: the first, which the API still takes. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

const isMessagesPath = (url: string | undefined) => (url ?? '').split('?')[0].endsWith('/messages');

/**
 * Puts the operator's key on a forwarded request the way its upstream reads it: Anthropic's Messages API takes
 * `x-api-key` (with an `anthropic-version`), every other route `Authorization: Bearer`. The client's own
 * credentials, in either header, were for the gateway (its `clientKeys`): none of them goes upstream. The client's
 * `anthropic-version` and `anthropic-beta` go as sent.
 */
export function setUpstreamKey(proxyReq: ClientRequest, req: IncomingMessage, apiKey: string): void {
  proxyReq.removeHeader('x-api-key');
  if (!isMessagesPath(req.url)) return void proxyReq.setHeader('authorization', `Bearer ${apiKey}`);
  proxyReq.removeHeader('authorization');
  proxyReq.setHeader('x-api-key', apiKey);
  if (req.headers['anthropic-version'] === undefined) proxyReq.setHeader('anthropic-version', DEFAULT_ANTHROPIC_VERSION);
}
