import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/client';
import { isPrivateAddress } from './private-address';

export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

export interface DiscoveryLimits {
  /** the MCP server: its origin alone may hold its resource metadata; on a private address, private ones are allowed */
  serverUrl: string;
  /** origins the operator allows on private addresses (`oauth.privateOrigins`) */
  privateOrigins?: string[];
  timeoutMs?: number;
  maxBytes?: number;
  /** how a host is resolved (the tests name hosts of their own) */
  resolve?: Resolve;
}

export const DISCOVERY_TIMEOUT_MS = 10_000;
export const DISCOVERY_MAX_BYTES = 1024 * 1024;
const NULL_BODY = new Set([204, 205, 304]);

const shown = (url: URL) => `${url.origin}${url.pathname}`;
/** a TypeError, as fetch's own network failures are: the SDK gives up on it rather than trying elsewhere */
const refused = (url: URL, why: string) => new TypeError(`OAuth did not fetch ${shown(url)}: ${why}`);
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

async function addressesOf(url: URL, resolve: Resolve): Promise<{ address: string; family: number }[]> {
  const host = hostOf(url);
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family }];
  try {
    return await resolve(host);
  } catch (error) {
    throw refused(url, `its host did not resolve (${(error as { code?: string }).code ?? 'no address'})`);
  }
}

/** The resource metadata a 401 or 403 names must be on the MCP server's own origin. */
export function checkResourceMetadataUrl(serverUrl: string, resourceMetadataUrl: URL | undefined): void {
  const origin = new URL(serverUrl).origin;
  if (resourceMetadataUrl && resourceMetadataUrl.origin !== origin)
    throw refused(resourceMetadataUrl, `the server's resource metadata must be on its own origin, ${origin}`);
}

/**
 * The fetch the SDK's `auth()` discovers, registers and exchanges codes with: http(s) only, no redirect followed (the
 * SDK follows a same-origin one through this fetch again), a private or loopback address only when the MCP server is
 * on one or the operator allows its origin, every address of a host checked and the connection made to them alone
 * (no second resolution), each exchange bounded in time and in the bytes of its answer.
 */
export function discoveryFetch(limits: DiscoveryLimits): FetchLike {
  const {
    timeoutMs = DISCOVERY_TIMEOUT_MS,
    maxBytes = DISCOVERY_MAX_BYTES,
    resolve = (host) => lookup(host, { all: true }),
  } = limits;
  const allowed = new Set((limits.privateOrigins ?? []).map((origin) => new URL(origin).origin));
  const server = new URL(limits.serverUrl);
  const serverIsPrivate = async () =>
    (await addressesOf(server, resolve).catch(() => [])).some(({ address }) => isPrivateAddress(address));

  return async (input, init = {}) => {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused(url, 'only http and https are fetched');
    const addresses = await addressesOf(url, resolve);
    if (addresses.length === 0) throw refused(url, 'its host has no address');
    const mayBePrivate = allowed.has(url.origin) || (await serverIsPrivate());
    if (!mayBePrivate && addresses.some(({ address }) => isPrivateAddress(address)))
      throw refused(
        url,
        'it is on a private or loopback address and the MCP server is not; ' +
          `allow it with oauth.privateOrigins: ['${url.origin}']`,
      );
    return send(url, init, addresses, timeoutMs, maxBytes);
  };
}

const pinned =
  (addresses: { address: string; family: number }[]): LookupFunction =>
  (_host, options, callback) =>
    options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family);

function bodyOf(body: RequestInit['body']): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return body.toString();
  throw new TypeError('OAuth sends only text and form bodies');
}

function send(
  url: URL,
  init: RequestInit,
  addresses: { address: string; family: number }[],
  timeoutMs: number,
  maxBytes: number,
): Promise<Response> {
  const body = bodyOf(init.body);
  const headers = new Headers(init.headers);
  if (init.body instanceof URLSearchParams && !headers.has('content-type'))
    headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
  if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
  return new Promise((resolve, reject) => {
    if (init.signal?.aborted) return reject(refused(url, 'the sign-in was given up'));
    const client = url.protocol === 'https:' ? https : http;
    const options = { method: init.method ?? 'GET', headers: Object.fromEntries(headers), lookup: pinned(addresses) };
    const req = client.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = Number(res.headers['content-length'] ?? 0);
      const tooLarge = () => fail(refused(url, `its answer is larger than ${maxBytes} bytes`));
      if (size > maxBytes) return tooLarge();
      size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) tooLarge();
        else chunks.push(chunk);
      });
      res.on('error', (error) => fail(error));
      res.on('end', () => {
        try {
          settle(() => resolve(responseOf(res, Buffer.concat(chunks))));
        } catch (error) {
          fail(error as Error);
        }
      });
    });
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', aborted);
      then();
    };
    const fail = (error: Error) => {
      settle(() => reject(error instanceof TypeError ? error : refused(url, error.message)));
      req.destroy();
    };
    const aborted = () => fail(refused(url, 'the sign-in was given up'));
    const timer = setTimeout(() => fail(refused(url, `no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    init.signal?.addEventListener('abort', aborted, { once: true });
    req.on('error', fail);
    req.end(body);
  });
}

function responseOf(res: http.IncomingMessage, body: Buffer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const one of [value ?? []].flat()) headers.append(name, one);
  const status = res.statusCode ?? 502;
  return new Response(NULL_BODY.has(status) ? null : body, { status, statusText: res.statusMessage, headers });
}
