import cluster from 'node:cluster';
import { AgentLoopError } from '../errors';
import { hasSharedSecret } from '../shared/signed-token';

/**
 * A node:cluster worker without a shared secret signs its loops' turns with a key of its own, so a turn that the
 * shared port hands to another worker cannot verify there: refused at start-up rather than found out under load.
 */
export function refuseClusterWithoutSecret(internalSecret: string | undefined, isWorker = cluster.isWorker): void {
  if (!isWorker || internalSecret !== undefined || hasSharedSecret) return;
  throw new AgentLoopError(
    'ERR_AGENT_LOOP_NO_SHARED_SECRET',
    'agentLoop: this process is a node:cluster worker ' +
      'and neither the option internalSecret nor the env MCP_INTERNAL_SECRET is set; ' +
      "each worker would sign its loop's turns with its own random key, " +
      'and a turn that lands on another worker would not verify. ' +
      'Set MCP_INTERNAL_SECRET to the same 32+ characters in every worker ' +
      '(e.g. the output of `openssl rand -hex 32`), or pass internalSecret.',
  );
}
