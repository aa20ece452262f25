import { AgentLoopError } from '../errors';

export const CONFIG_EXAMPLE = '{ "upstream": { "url": "http://127.0.0.1:11434/v1" }, "bindings": [] }';

/** Line and column (from 1) of the character at `position`. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * The value a config file's text holds. Text that is not JSON throws the coded error with where the parser stopped
 * (line and column) and what a hand-written JSON file most often gets wrong.
 */
export function parseConfig(text: string, file: string): unknown {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    const at = /at position (\d+)/.exec(reason);
    const { line, column } = lineAndColumn(text, at ? Number(at[1]) : text.length);
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_CONFIG_NOT_JSON',
      `the config file ${file} is not JSON at line ${line}, column ${column} (${reason.replace(/ in JSON at position \d+.*$/, '')}); ` +
        'fix it there: JSON has its keys and strings in double quotes, ' +
        `no comments and no comma after the last entry, e.g. ${CONFIG_EXAMPLE}`,
    );
  }
  refuseClientSecret(config, file, []);
  return config;
}

/** An MCP server's OAuth client secret stays out of the file, which is read by more people than the environment. */
function refuseClientSecret(value: unknown, file: string, path: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  if (path.at(-1) === 'oauth' && 'clientSecret' in value) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `the config file ${file} holds option ` +
        `'${[...path, 'clientSecret'].join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]')}' (not shown); a config ` +
        `file holds no client secret: set it in an environment variable and name that, e.g. "clientSecretEnv": ` +
        `"MCP_CLIENT_SECRET".`,
    );
  }
  for (const [key, inner] of Object.entries(value)) refuseClientSecret(inner, file, [...path, key]);
}
