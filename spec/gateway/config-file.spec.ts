import { parseConfig } from '../../lib/gateway/config-file';

const FIX =
  'fix it there: JSON has its keys and strings in double quotes, no comments and no comma after the last entry, e.g. { "upstream": { "url": "http://127.0.0.1:11434/v1" }, "bindings": [] }';

describe('a config file', () => {
  it('is read as the JSON it holds', () => {
    expect(parseConfig('{ "upstream": { "url": "http://127.0.0.1:11434/v1" } }', 'gateway.json')).toEqual({
      upstream: { url: 'http://127.0.0.1:11434/v1' },
    });
    expect(parseConfig('null', 'gateway.json')).toBeNull();
  });

  it.each([
    ['a comma after the last entry', '{\n  "port": 3000,\n}\n', 3, 1, 'Expected double-quoted property name'],
    ['a comment', '{\n  "port": 3000 // the default\n}', 2, 16, "Expected ',' or '}' after property value"],
    ['a key in single quotes', "{ 'port': 3000 }", 1, 3, "Expected property name or '}'"],
    ['an end too early', '{ "upstream": ', 1, 15, 'Unexpected end of JSON input'],
  ])(
    'that is not JSON (%s) gets the coded error with the line, the column and the fix',
    (_case, text, line, column, reason) => {
      expect(() => parseConfig(text, '/etc/gateway.json')).toThrow(
        expect.objectContaining({
          code: 'ERR_AGENT_LOOP_CONFIG_NOT_JSON',
          message: `the config file /etc/gateway.json is not JSON at line ${line}, column ${column} (${reason}); ${FIX}`,
        }),
      );
    },
  );

  it.each([
    [
      'trellis.mcp.oauth.clientSecret',
      { trellis: { mcp: { url: 'http://127.0.0.1:1/mcp', oauth: { clientSecret: 'cs-1' } } } },
    ],
    [
      'bindings[0].trellis.mcp.oauth.clientSecret',
      { bindings: [{ name: 'notes', trellis: { mcp: { oauth: { clientId: 'c1', clientSecret: 'cs-1' } } } }] },
    ],
  ])('that holds an OAuth client secret (%s) is refused, naming it, never showing it', (option, config) => {
    expect(() => parseConfig(JSON.stringify(config), 'gateway.json')).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_INVALID_OPTION',
        message: `the config file gateway.json holds option '${option}' (not shown); a config file holds no client secret: set it in an environment variable and name that, e.g. "clientSecretEnv": "MCP_CLIENT_SECRET".`,
      }),
    );
  });

  it('takes an OAuth client secret by the environment variable it names', () => {
    const config = { trellis: { mcp: { oauth: { clientId: 'c1', clientSecretEnv: 'MCP_CLIENT_SECRET' } } } };
    expect(parseConfig(JSON.stringify(config), 'gateway.json')).toEqual(config);
  });
});
