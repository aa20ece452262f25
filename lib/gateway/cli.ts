#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { reloadConfig } from './reload';
import { AgentLoopError } from '../errors';
import { CONFIG_EXAMPLE, parseConfig } from './config-file';
import { createGateway } from './gateway';
import { gatewayOptions, type GatewayConfig } from './options';
import type { AgentLoopMiddleware } from '../middleware';
import { defaultOf } from '../options/declaration';
import { loopOptions } from '../options/agent-loop';

const USAGE = 'usage: agent-loop-gateway --config gateway.json [--port N] [--host HOST]';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function readConfig(file: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return fail(
      `agent-loop-gateway: cannot read --config ${file}: ` +
        `${(error as Error).message}${readFix(error as NodeJS.ErrnoException)}`,
    );
  }
  let config: unknown;
  try {
    config = parseConfig(text, file);
  } catch (error) {
    return fail(`${(error as AgentLoopError).code}: ${(error as Error).message}`);
  }
  if (typeof config === 'object' && config !== null && !Array.isArray(config)) return config as GatewayConfig;
  return fail(
    `agent-loop-gateway: --config ${file} holds ${JSON.stringify(config)}; ` +
      `it must hold a JSON object, e.g. ${CONFIG_EXAMPLE}`,
  );
}

/** What to do about a config file the gateway cannot read. */
function readFix(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT')
    return (
      `; give the path of your JSON config, absolute or from ${process.cwd()}, ` +
      'or start from the example: --config node_modules/express-agent-loop/gateway.example.json'
    );
  if (error.code === 'EISDIR') return '; --config takes the JSON file itself, e.g. --config gateway.json';
  if (error.code === 'EACCES' || error.code === 'EPERM')
    return '; let the user the gateway runs as read it (chmod a+r), or run the gateway as its owner';
  return '; check the path, and that the user the gateway runs as may read it';
}

/** What to do about a port the gateway cannot listen on. */
function listenFix(error: NodeJS.ErrnoException, port: number): string {
  if (error.code === 'EADDRINUSE')
    return `; another process listens there: stop it or choose another port, e.g. --port ${port + 1}`;
  if (error.code === 'EACCES') return '; ports below 1024 need privileges: choose another, e.g. --port 3000';
  return '';
}

/** A port given as text: digits become a number, anything else stays text for createGateway to refuse by name. */
function portOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return (/^\d+$/.test(text) ? Number(text) : text) as number;
}

/** `agent-loop-gateway --config FILE [--port N]`: bad arguments or config exit 2 with the coded message, no stack. */
export function main(argv = process.argv.slice(2)): void {
  let values: { config?: string; port?: string; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return fail(`agent-loop-gateway: ${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(
      `${USAGE}\nThe config file (JSON) holds upstream: { url, apiKeyEnv?, routes? }, ` +
        'clientKeys or clientKeysEnv, and the options of agentLoop; see gateway.example.json.',
    );
    return process.exit(0);
  }
  if (!values.config) return fail(`agent-loop-gateway: --config is required\n${USAGE}`);
  const config = readConfig(values.config);
  const port = portOf(values.port) ?? portOf(process.env.PORT) ?? config.port ?? defaultOf(gatewayOptions.port);
  const host = values.host ?? config.host ?? defaultOf(gatewayOptions.host);
  let app;
  try {
    app = createGateway({ ...config, port, host });
  } catch (error) {
    if (error instanceof AgentLoopError) return fail(`${error.code}: ${error.message}`);
    throw error;
  }
  // Not app.listen(): Express 5 calls its callback with the error too (EADDRINUSE), Express 4 only on success.
  const server = http.createServer(app);
  server.once('error', (error) =>
    fail(`agent-loop-gateway: cannot listen on ${host}:${port}: ${error.message}${listenFix(error, port)}`),
  );
  server.listen(port, host, () => {
    const address = server.address() as AddressInfo;
    console.log(`listening on http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
  });
  const drainSec = config.shutdownDrainSec ?? defaultOf(loopOptions.shutdownDrainSec);
  const turnsUseListener = config.selfUrl !== undefined || config.selfCall === 'socket';
  process.on('SIGHUP', () =>
    reloadConfig(values.config!, app.locals.agentLoop, config as unknown as Record<string, unknown>),
  );
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => void shutDown(server, app.locals.agentLoop, { drainSec, turnsUseListener }, signal));
}

let shuttingDown = false;

/**
 * Stops taking connections and leaves the open ones alone. `http.Server#close()` also closes the idle ones, and
 * between two turns of a loop its in-process connection is idle: the next turn, already written, would be cut.
 */
function stopListening(server: http.Server): void {
  net.Server.prototype.close.call(server);
}

/**
 * Stops accepting, drains, then exits 0. In-process turns never come in through the listener, so it stops listening
 * at once; socket turns (`selfUrl`, `selfCall: 'socket'`) do, so then it stays open until the loops drained, and new
 * requests meanwhile get no loop (the normal handler answers them). Idle connections are closed once the loops
 * drained. Either way /readyz says 503 from the signal on, and a request still running after the drain gets the
 * drain's length again before its connection is cut.
 */
async function shutDown(
  server: http.Server,
  loop: AgentLoopMiddleware,
  { drainSec, turnsUseListener }: { drainSec: number; turnsUseListener: boolean },
  signal: NodeJS.Signals,
): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log(`agent-loop-gateway: ${signal}: draining in-flight loops, then exiting`);
  const closed = new Promise((resolve) => server.once('close', resolve));
  if (!turnsUseListener) stopListening(server);
  await loop.close();
  server.close();
  setTimeout(() => server.closeAllConnections(), drainSec * 1000).unref();
  await closed;
  process.exit(0);
}

if (require.main === module) main();
