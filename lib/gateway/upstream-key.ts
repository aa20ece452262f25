import type { ClientRequest, IncomingMessage } from 'node:http';
import { AgentLoopError } from '../errors';

/** The Messages API version a request goes with when its client named none: the first, which the API still takes. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

const isMessagesPath = (url: string | undefined) => (url ?? '').split('?')[0].endsWith('/messages');

/**
 * The operator's key for the upstream, with `upstream.apiKeyEnv`. A named variable that is unset or empty is a
 * configuration error: the gateway does not start without the key it was told to send.
 */
export function upstreamKeyOf(apiKeyEnv: string | undefined): string | undefined {
  if (apiKeyEnv === undefined) return undefined;
  const key = process.env[apiKeyEnv];
  if (key) return key;
  throw new AgentLoopError(
    'ERR_AGENT_LOOP_NO_UPSTREAM_KEY',
    `createGateway: option 'upstream.apiKeyEnv' names ${apiKeyEnv}, which is ${key === undefined ? 'not set' : 'empty'}; set it to the upstream's API key (e.g. export ${apiKeyEnv}=sk-...), or remove apiKeyEnv for an upstream that takes no key.`,
  );
}

/**
 * Takes the client's own credentials off a forwarded request (in either header, they were for the gateway: its
 * `clientKeys`) and puts the operator's key, when there is one, the way its upstream reads it: Anthropic's Messages
 * API takes `x-api-key` (with an `anthropic-version`), every other route `Authorization: Bearer`. The client's
 * `anthropic-version` and `anthropic-beta` go as sent.
 */
export function setUpstreamKey(proxyReq: ClientRequest, req: IncomingMessage, apiKey: string | undefined): void {
  proxyReq.removeHeader('x-api-key');
  proxyReq.removeHeader('authorization');
  if (apiKey === undefined) return;
  if (!isMessagesPath(req.url)) return void proxyReq.setHeader('authorization', `Bearer ${apiKey}`);
  proxyReq.setHeader('x-api-key', apiKey);
  if (req.headers['anthropic-version'] === undefined)
    proxyReq.setHeader('anthropic-version', DEFAULT_ANTHROPIC_VERSION);
}
