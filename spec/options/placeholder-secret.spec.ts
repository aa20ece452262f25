import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { agentLoop } from '../../lib/middleware';
import { refusePlaceholderSecret } from '../../lib/options/placeholder-secret';
import { memoryLogger } from '../helpers/memory-logger';

const ROOT = path.join(__dirname, '..', '..');
const REFUSED =
  "ERR_AGENT_LOOP_PLACEHOLDER_SECRET: agentLoop: option 'internalSecret' is a placeholder, not a secret: whoever read the docs could forge the loop's markers, approvals and a fleet's shared settings. " +
  'Generate one with `openssl rand -hex 32` and give every replica the same.';

/** every `"internalSecret": "..."` the docs, the README and the example config show */
function shownSecrets(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`);
  const files = ['README.md', 'gateway.example.json', ...docs];
  return files.flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/"?internalSecret"?: "([^"]*)"/g)].map(
      (match) => match[1],
    ),
  );
}

describe('a placeholder internalSecret', () => {
  it("refuses the docs' own placeholder at start-up, naming the option and the fix", () => {
    const secrets = shownSecrets();
    expect(secrets).toContain('… 32+ characters, the same on every replica …');
    for (const internalSecret of secrets)
      expect(() => agentLoop({ internalSecret, logger: memoryLogger('error').logger })).toThrow(
        expect.objectContaining({
          code: 'ERR_AGENT_LOOP_PLACEHOLDER_SECRET',
          message: REFUSED.slice(REFUSED.indexOf(' ') + 1),
        }),
      );
  });

  it('refuses change-me secrets, and MCP_INTERNAL_SECRET when it is one', () => {
    expect(() => refusePlaceholderSecret('change-me-change-me-change-me-change-me')).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_PLACEHOLDER_SECRET' }),
    );
    expect(() => refusePlaceholderSecret(undefined, 'your-secret-of-32-characters-or-more')).toThrow(
      "agentLoop: env MCP_INTERNAL_SECRET is a placeholder, not a secret: whoever read the docs could forge the loop's markers, approvals and a fleet's shared settings. " +
        'Generate one with `openssl rand -hex 32` and give every replica the same.',
    );
  });

  it('lets a generated secret, and no secret, start', () => {
    expect(() =>
      refusePlaceholderSecret('3f9a0c1b7e2d4a6f8b0c2e4a6d8f0b1c3e5a7c9e1b3d5f7a9c0e2b4d6f8a0c1e'),
    ).not.toThrow();
    expect(() => refusePlaceholderSecret(undefined, undefined)).not.toThrow();
    expect(() => refusePlaceholderSecret('fleet-internal-secret-0123456789abcdef')).not.toThrow();
  });
});
