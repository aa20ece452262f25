import { execFileSync } from 'node:child_process';
import { javascript } from '../helpers/javascript';

/** What a fresh node process holds after `program`, run against the transpiled lib/ (a spec's own modules are jest's). */
function run(program: string): unknown {
  const lib = javascript('lib/index.ts');
  const sdk = javascript('lib/trellis/mcp-sdk.ts');
  const loaded = "() => Object.keys(require.cache).some((file) => file.includes('@modelcontextprotocol'))";
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      `const lib = require(${JSON.stringify(lib)}); const sdk = require(${JSON.stringify(sdk)}); const loaded = ${loaded}; ${program}`,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out);
}

describe('mcpClient / mcpStdio', () => {
  it('leaves the SDK unloaded while the app builds its MCP Trellis, and loads it on first use', () => {
    expect(
      run(`
        lib.mcpTrellis({ url: 'http://127.0.0.1:9/mcp' });
        const before = loaded();
        const client = sdk.mcpClient();
        console.log(JSON.stringify({
          before,
          after: loaded(),
          same: client === require('@modelcontextprotocol/client') && sdk.mcpClient() === client,
          stdio: sdk.mcpStdio() === require('@modelcontextprotocol/client/stdio'),
        }));`),
    ).toEqual({ before: false, after: true, same: true, stdio: true });
  });
});
