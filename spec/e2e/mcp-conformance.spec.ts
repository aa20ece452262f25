import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The official MCP conformance suite's client scenarios (spec version 2026-07-28, and the two of 2025-03-26), with
 * agentLoop as the client (fixtures/conformance/client.ts). The suite needs Node 22's `fs.globSync`: on Node 20 a
 * loader (fixtures/conformance/register.mjs) gives it one.
 */
const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const client = `node -r ${require.resolve('ts-node/register/transpile-only')} ${path.join(root, 'fixtures/conformance/client.ts')}`;

const CURRENT = [
  'tools_call',
  'request-metadata',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
];
const SCENARIOS: [string, string][] = [
  ...CURRENT.map((scenario): [string, string] => [scenario, '2026-07-28']),
  ['auth/2025-03-26-oauth-metadata-backcompat', '2025-03-26'],
  ['auth/2025-03-26-oauth-endpoint-fallback', '2025-03-26'],
];

/**
 * The checks known to fall short, each with its reason; any other check that fails or warns fails the spec.
 * CIMD: the gateway offers a Client ID Metadata Document only when its `redirectUrl` is https (docs/mcp.md).
 */
const KNOWN: Record<string, string[]> = {
  'auth/basic-cimd': ['cimd-client-id-used'],
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

async function checksOf(scenario: string, specVersion: string): Promise<Check[]> {
  const output = await mkdtemp(path.join(os.tmpdir(), 'conformance-'));
  try {
    const args = ['--import', path.join(root, 'fixtures/conformance/register.mjs'), cli, 'client'];
    args.push('--command', client, '--scenario', scenario, '--spec-version', specVersion, '--timeout', '90000');
    await promisify(execFile)(process.execPath, [...args, '--output-dir', output], {
      cwd: output,
      env: { ...process.env, TS_NODE_SWC: 'true', TS_NODE_PROJECT: path.join(root, 'tsconfig.json') },
    }).catch((error: { code?: number }) => {
      if (typeof error.code !== 'number') throw error;
    });
    const saved = (await readdir(output, { recursive: true })).find((file) => path.basename(file) === 'checks.json');
    const checks = JSON.parse(await readFile(path.join(output, saved!), 'utf8')) as Check[];
    if (checks.some(({ status }) => status === 'SUCCESS')) return checks;
    throw new Error(await readFile(path.join(output, path.dirname(saved!), 'stderr.txt'), 'utf8'));
  } finally {
    await rm(output, { recursive: true, force: true });
  }
}

describe('the official MCP conformance suite, agentLoop as the client', () => {
  // one at a time: each scenario runs two node processes, and five at once starve the other specs of a 2-core machine
  it.each(SCENARIOS)(
    '%s (%s)',
    async (scenario, specVersion) => {
      const checks = await checksOf(scenario, specVersion);
      const fallingShort = checks.filter(({ status }) => status === 'FAILURE' || status === 'WARNING');
      expect(fallingShort.filter(({ id }) => !(KNOWN[scenario] ?? []).includes(id))).toEqual([]);
    },
    240_000,
  );
});
