import type { ClientRequest, IncomingMessage } from 'node:http';
import { AgentLoopError } from '../errors';
import { CLIENT_KEY_HEADERS } from '../shared/credential';
import { loggedPath } from '../shared/redact';
import { wireFor } from '../wire/wires';

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
    `createGateway: option 'upstream.apiKeyEnv' names ${apiKeyEnv}, which is ` +
      `${key === undefined ? 'not set' : 'empty'}; set it to the upstream's API key (e.g. export ` +
      `${apiKeyEnv}=sk-...), or remove apiKeyEnv for an upstream that takes no key.`,
  );
}

/**
 * Takes the client's own credentials off a forwarded request (in any header a client's key goes in, they were for
 * the gateway: its `clientKeys`) and puts the operator's key, when there is one, the way the wire of the path reads
 * it (its `apiKey`: Anthropic's Messages API takes `x-api-key` with an `anthropic-version`, Gemini's `x-goog-api-key`;
 * a
 * `?key=` in the query is taken off too); any other route takes
 * `Authorization: Bearer`. The client's own `anthropic-version` and `anthropic-beta` go as sent.
 */
export function setUpstreamKey(proxyReq: ClientRequest, req: IncomingMessage, apiKey: string | undefined): void {
  for (const header of CLIENT_KEY_HEADERS) proxyReq.removeHeader(header);
  // a Gemini client's `?key=` was for the gateway too
  proxyReq.path = loggedPath(proxyReq.path);
  if (apiKey === undefined) return;
  const wanted = wireFor((req.url ?? '').split('?')[0])?.apiKey ?? { header: 'authorization' };
  if (wanted.header === 'authorization') return void proxyReq.setHeader('authorization', `Bearer ${apiKey}`);
  proxyReq.setHeader(wanted.header, apiKey);
  for (const [header, value] of Object.entries(wanted.defaults ?? {}))
    if (req.headers[header] === undefined) proxyReq.setHeader(header, value);
}
