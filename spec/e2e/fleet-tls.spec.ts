import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { cliWith, configFile, listeningUrl, stopCli, type CliRun } from '../helpers/cli-gateway';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../trellis/helpers';

const PASSWORD = 'tls-fleet-password-5b2e81';
const ADMIN_KEY = 'fleet-admin-key-0123456789';

/** A self-signed certificate for 127.0.0.1, made for this run with openssl: the gateway trusts it as its CA. */
function selfSigned(): { certFile: string; keyFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-loop-redis-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}

jest.setTimeout(120_000);

describe('a gateway on a Redis over TLS (rediss://) with a password', () => {
  let redis: RedisServer;
  let mcp: McpFixtureServer;
  let model: ModelServer;
  let gateway: CliRun | undefined;
  afterAll(async () => {
    await stopCli(gateway);
    await Promise.all([redis?.stop(), mcp?.close(), model?.close()]);
  });

  it('shares through it, and never shows the password: not in a log line, an error, the admin API or /readyz', async () => {
    const tls = selfSigned();
    [redis, mcp, model] = await Promise.all([
      startRedis(['--requirepass', PASSWORD], tls),
      startMcpServer(),
      startModelServer([{ content: 'ok' }]),
    ]);
    const storeUrl = `rediss://:${PASSWORD}@127.0.0.1:${redis.port}`;
    const config = {
      upstream: { url: model.url },
      store: { url: storeUrl },
      keyBudget: { tokens: 1000, windowSec: 2678400 },
      admin: { keyEnv: 'FLEET_ADMIN_KEY' },
      trellis: { mcp: { url: mcp.url } },
      bindings: [{ name: 'any', match: { model: '*' }, hierarchy: [] }],
    };
    gateway = cliWith(
      { FLEET_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: 'debug', NODE_EXTRA_CA_CERTS: tls.certFile },
      '--config',
      configFile(config),
      '--port',
      '0',
    );
    const url = await listeningUrl(gateway);
    const get = async (route: string) => {
      const response = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      return { status: response.status, text: await response.text() };
    };
    await eventually(async () => expect((await get('/readyz')).status).toBe(200), 60_000);
    const answer = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer client-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status).toBe(200);
    const shown = [await get('/readyz'), await get('/admin/api/settings'), await get('/admin/api/loops')];
    const budget = await get('/admin/api/key-budget');
    expect(JSON.parse(budget.text).keys).toEqual([expect.objectContaining({ spent: 15 })]);

    await redis.stop();
    await eventually(async () => expect((await get('/readyz')).status).toBe(503), 60_000);
    const failed = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer client-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(failed.status).toBe(200);
    const away = await get('/readyz');
    expect(JSON.parse(away.text).down.store).toMatch(
      new RegExp(`^rediss://\\[redacted\\]@127\\.0\\.0\\.1:${redis.port}: `),
    );

    const everything = [...shown, budget, away, await get('/admin/api/key-budget'), await get('/metrics')]
      .map((reply) => reply.text)
      .join('\n');
    expect(everything + gateway.stdout + gateway.stderr).not.toContain(PASSWORD);
    expect(gateway.stdout).toContain('agent-loop store unreachable');
  });
});
