import http from 'node:http';
import { onLoopback, type OnLoopback } from '../../../lib/testing/loopback';
import { checkResourceMetadataUrl, discoveryFetch, type Resolve } from '../../../lib/trellis/oauth/discovery-fetch';

/** Hosts of the tests' own naming: a public MCP server, and a name that points inside. */
const hosts: Record<string, string> = { 'mcp.example.test': '203.0.113.7', 'inside.example.test': '10.1.2.3' };
const resolve: Resolve = async (host) => {
  if (!hosts[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [{ address: hosts[host], family: 4 }];
};
const PUBLIC_SERVER = 'https://mcp.example.test/mcp';

describe('discoveryFetch', () => {
  let internal: OnLoopback;
  let seen: string[];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  beforeEach(async () => {
    seen = [];
    answer = (_req, res) => void res.end('{"secret":"internal"}');
    internal = await onLoopback(
      http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        answer(req, res);
      }),
    );
  });
  afterEach(() => internal.close());

  it('does not reach a loopback or private address for a public MCP server, nor a name that resolves to one', async () => {
    const fetch = discoveryFetch({ serverUrl: PUBLIC_SERVER, resolve });
    await expect(fetch(`${internal.origin}/internal/admin?action=purge`)).rejects.toThrow(
      new TypeError(
        `OAuth did not fetch ${internal.origin}/internal/admin: it is on a private or loopback address and the MCP server is not; allow it with oauth.privateOrigins: ['${internal.origin}']`,
      ),
    );
    await expect(fetch('http://inside.example.test/')).rejects.toThrow(/private or loopback address/);
    await expect(fetch('http://[::ffff:127.0.0.1]:1/')).rejects.toThrow(/private or loopback address/);
    await expect(fetch('http://nowhere.example.test/')).rejects.toThrow('its host did not resolve (ENOTFOUND)');
    await expect(fetch('file:///etc/passwd')).rejects.toThrow('only http and https are fetched');
    expect(seen).toEqual([]);
  });

  it('reaches a private origin the operator allows, and any when the MCP server itself is on one', async () => {
    const allowed = discoveryFetch({ serverUrl: PUBLIC_SERVER, privateOrigins: [`${internal.origin}/`], resolve });
    expect(await (await allowed(`${internal.origin}/metadata`)).json()).toEqual({ secret: 'internal' });
    const onLoopbackServer = discoveryFetch({ serverUrl: 'http://127.0.0.1:9/mcp' });
    expect((await onLoopbackServer(`${internal.origin}/metadata`)).status).toBe(200);
    expect(seen).toEqual(['GET /metadata', 'GET /metadata']);
  });

  it('follows no redirect: the SDK sees it, and the place it points to is not fetched', async () => {
    answer = (_req, res) => void res.writeHead(302, { location: 'http://10.1.2.3/internal' }).end();
    const response = await discoveryFetch({ serverUrl: internal.origin })(`${internal.origin}/.well-known/x`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://10.1.2.3/internal');
  });

  it('sends a form body as the token endpoint needs it', async () => {
    answer = (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => res.end(JSON.stringify({ body, type: req.headers['content-type'] })));
    };
    const response = await discoveryFetch({ serverUrl: internal.origin })(`${internal.origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'c' }),
    });
    expect(await response.json()).toEqual({
      body: 'grant_type=authorization_code&code=c',
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
    });
  });

  it('cuts a 200 MiB document off past 1 MiB, declared or streamed, having read little of it', async () => {
    let written = 0;
    answer = (req, res) => {
      if (req.url === '/declared') res.writeHead(200, { 'content-length': String(200 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (!res.destroyed && written < 200 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
      };
      more();
    };
    const fetch = discoveryFetch({ serverUrl: internal.origin });
    for (const path of ['/declared', '/streamed'])
      await expect(fetch(`${internal.origin}${path}`)).rejects.toThrow(
        `OAuth did not fetch ${internal.origin}${path}: its answer is larger than 1048576 bytes`,
      );
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('gives up on a server that does not answer in time', async () => {
    answer = () => undefined;
    const fetch = discoveryFetch({ serverUrl: internal.origin, timeoutMs: 200 });
    await expect(fetch(`${internal.origin}/slow`)).rejects.toThrow(
      `OAuth did not fetch ${internal.origin}/slow: no answer within 0.2 s`,
    );
  });

  it('takes resource metadata on the MCP server’s own origin only', () => {
    expect(() =>
      checkResourceMetadataUrl(PUBLIC_SERVER, new URL('https://mcp.example.test/.well-known/x')),
    ).not.toThrow();
    expect(() => checkResourceMetadataUrl(PUBLIC_SERVER, undefined)).not.toThrow();
    expect(() => checkResourceMetadataUrl(PUBLIC_SERVER, new URL('http://10.0.0.1/admin?purge=1'))).toThrow(
      "OAuth did not fetch http://10.0.0.1/admin: the server's resource metadata must be on its own origin, https://mcp.example.test",
    );
  });
});
