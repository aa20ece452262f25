import { AgentLoopError } from '../errors';

/**
 * Words only a placeholder has: the docs' own (`… 32+ characters, the same on every replica …`) and the usual
 * change-me kind. A config copied from the docs would otherwise run with a secret anyone can read, and anyone could
 * forge its markers, approvals and the fleet's shared settings.
 */
const PLACEHOLDER =
  /…|32\+ characters|same on every replica|change[-_ ]?me|replace[-_ ]?me|your[-_ ]?secret|placeholder/i;

/** Refuses at start-up an `internalSecret` (or `MCP_INTERNAL_SECRET`) that is a known placeholder. */
export function refusePlaceholderSecret(
  internalSecret: string | undefined,
  env: string | undefined = process.env.MCP_INTERNAL_SECRET,
): void {
  const [name, secret] =
    internalSecret !== undefined ? ["option 'internalSecret'", internalSecret] : ['env MCP_INTERNAL_SECRET', env];
  if (secret === undefined || !PLACEHOLDER.test(secret)) return;
  throw new AgentLoopError(
    'ERR_AGENT_LOOP_PLACEHOLDER_SECRET',
    `agentLoop: ${name} is a placeholder, not a secret: ` +
      `whoever read the docs could forge the loop's markers, approvals and a fleet's shared settings. ` +
      'Generate one with `openssl rand -hex 32` and give every replica the same.',
  );
}
