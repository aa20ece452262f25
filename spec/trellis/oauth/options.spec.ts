import { agentLoop, mcpTrellis } from '../../../lib';
import { memoryLogger } from '../../helpers/memory-logger';

const url = 'http://127.0.0.1:1/mcp';
const redirectUrl = 'https://gateway.example.com/oauth/callback';
const withOAuth = (oauth: unknown) => () =>
  agentLoop({ trellis: { mcp: { url, oauth } } as never, logger: memoryLogger().logger });

describe('trellis.mcp.oauth', () => {
  const ORIGINS_HINT =
    "it must be a list of origins (scheme, host, port) the sign-in may reach on private or loopback addresses, e.g. privateOrigins: ['https://auth.internal:8443']";
  const SECRET_HINT =
    "it must be the client secret the authorization server issued with clientId (in the gateway config: clientSecretEnv: 'MCP_CLIENT_SECRET')";
  it.each([
    [
      {},
      "agentLoop: option 'trellis.mcp.oauth.redirectUrl' is undefined; it must be the public URL of the callback agentLoop serves on its own app, e.g. redirectUrl: 'https://gateway.example.com/oauth/callback'.",
    ],
    [
      { redirectUrl: 'nope' },
      "agentLoop: option 'trellis.mcp.oauth.redirectUrl' is \"nope\"; it must be the public URL of the callback agentLoop serves on its own app, e.g. redirectUrl: 'https://gateway.example.com/oauth/callback'.",
    ],
    [
      { redirectUrl: 'ftp://g.example.com/cb' },
      "agentLoop: option 'trellis.mcp.oauth.redirectUrl' is \"ftp://g.example.com/cb\"; it must be the public URL of the callback agentLoop serves on its own app, e.g. redirectUrl: 'https://gateway.example.com/oauth/callback'.",
    ],
    [
      { redirectUrl: 'https://g.example.com/cb#done' },
      'agentLoop: option \'trellis.mcp.oauth.redirectUrl\' is "https://g.example.com/cb#done"; with value "https://g.example.com/cb#done" fails to match the no fragment pattern; it must be the public URL of the callback agentLoop serves on its own app, e.g. redirectUrl: \'https://gateway.example.com/oauth/callback\'.',
    ],
    [
      { redirectUrl, clientId: 5 },
      "agentLoop: option 'trellis.mcp.oauth.clientId' is 5; it must be the client id the authorization server issued, e.g. clientId: 'agent-loop'.",
    ],
    [
      { redirectUrl, clientSecret: 'cs-1' },
      `agentLoop: option 'trellis.mcp.oauth.clientSecret' is a string of 4 characters (not shown); clientSecret goes with the clientId it was issued for: give clientId beside it; ${SECRET_HINT}.`,
    ],
    [
      { redirectUrl, clientId: 'c1', clientSecret: 12345 },
      `agentLoop: option 'trellis.mcp.oauth.clientSecret' is a number (not shown); ${SECRET_HINT}.`,
    ],
    [
      { redirectUrl, clientSecretEnv: 'MCP_CLIENT_SECRET' },
      "agentLoop: option 'trellis.mcp.oauth.clientSecretEnv' is \"MCP_CLIENT_SECRET\"; clientSecretEnv goes with the clientId it was issued for: give clientId beside it; it must name an environment variable holding the client secret, e.g. clientSecretEnv: 'MCP_CLIENT_SECRET'.",
    ],
    [
      { redirectUrl, clientId: 'c1', clientSecret: 'cs-1', clientSecretEnv: 'MCP_CLIENT_SECRET' },
      "agentLoop: option 'trellis.mcp.oauth.clientSecretEnv' is \"MCP_CLIENT_SECRET\"; give clientSecret or clientSecretEnv, not both; it must name an environment variable holding the client secret, e.g. clientSecretEnv: 'MCP_CLIENT_SECRET'.",
    ],
    [
      { redirectUrl, clientId: 'c1', clientSecretEnv: 5 },
      "agentLoop: option 'trellis.mcp.oauth.clientSecretEnv' is 5; it must name an environment variable holding the client secret, e.g. clientSecretEnv: 'MCP_CLIENT_SECRET'.",
    ],
    [
      { redirectUrl, scopes: [] },
      "agentLoop: option 'trellis.mcp.oauth.scopes' is []; it must be a list of scopes to ask for, e.g. scopes: ['repo:read'].",
    ],
    [
      { redirectUrl, scopes: 'notes:read' },
      "agentLoop: option 'trellis.mcp.oauth.scopes' is \"notes:read\"; it must be a list of scopes to ask for, e.g. scopes: ['repo:read'].",
    ],
    [
      { redirectUrl, user: 5 },
      "agentLoop: option 'trellis.mcp.oauth.user' is 5; it must be the name of a header your authentication sets, e.g. user: 'x-user-id', or (req) => string | undefined.",
    ],
    [
      { redirectUrl, privateOrigins: ['https://auth.internal:8443/oauth'] },
      `agentLoop: option 'trellis.mcp.oauth.privateOrigins[0]' is "https://auth.internal:8443/oauth"; with value "https://auth.internal:8443/oauth" fails to match the origin pattern; ${ORIGINS_HINT}.`,
    ],
    [
      { redirectUrl, privateOrigins: 'http://10.0.0.5' },
      `agentLoop: option 'trellis.mcp.oauth.privateOrigins' is "http://10.0.0.5"; ${ORIGINS_HINT}.`,
    ],
    [
      'yes',
      "agentLoop: option 'trellis.mcp.oauth' is \"yes\"; it must be { redirectUrl: 'https://gateway.example.com/oauth/callback', clientId?, clientSecret? or clientSecretEnv?, scopes?, privateOrigins?, user? }.",
    ],
  ])('refuses %j at start-up, naming the option, the value and the fix', (oauth, message) => {
    expect(withOAuth(oauth)).toThrow(expect.objectContaining({ code: 'ERR_AGENT_LOOP_INVALID_OPTION', message }));
  });

  it('names a misspelt one, and a redirectUrl missing from a binding’s own server', () => {
    expect(withOAuth({ redirectURL: redirectUrl })).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_UNKNOWN_OPTION',
        message:
          "agentLoop: unknown option 'trellis.mcp.oauth.redirectURL'. Did you mean `redirectUrl`? Known options here: redirectUrl, clientId, clientSecret, clientSecretEnv, scopes, privateOrigins, user.",
      }),
    );
    const binding = { name: 'notes', match: { model: 'agent-*' }, hierarchy: ['whoami'] };
    expect(() => agentLoop({ bindings: [{ ...binding, trellis: { mcp: { url, oauth: {} } } as never }] })).toThrow(
      /^agentLoop: option 'bindings\[0\]\.trellis\.mcp\.oauth\.redirectUrl' is undefined; it must be the public URL/,
    );
  });

  it('never shows the client secret, whatever the complaint', () => {
    for (const oauth of [
      { redirectUrl, clientSecret: 'cs-never-shown-0123' },
      { redirectUrl: 5, clientId: 'c1', clientSecret: 'cs-never-shown-0123' },
      { redirectUrl, clientId: 'c1', clientSecret: 'cs-never-shown-0123', colour: 'red' },
    ]) {
      expect(withOAuth(oauth)).toThrow(expect.not.objectContaining({ message: expect.stringContaining('cs-never') }));
    }
  });

  it('reads the client secret from clientSecretEnv at start-up, and refuses one that is not set', async () => {
    process.env.OAUTH_SPEC_SECRET = 'cs-from-env';
    await withOAuth({ redirectUrl, clientId: 'c1', clientSecretEnv: 'OAUTH_SPEC_SECRET' })().close();
    delete process.env.OAUTH_SPEC_SECRET;
    expect(withOAuth({ redirectUrl, clientId: 'c1', clientSecretEnv: 'OAUTH_SPEC_SECRET' })).toThrow(
      "agentLoop: option 'trellis.mcp.oauth.clientSecretEnv' names OAUTH_SPEC_SECRET, which is not set; set it to the client secret the authorization server issued with clientId, or leave clientSecretEnv out.",
    );
  });

  it('refuses a user that is no header name, saying what it must be', () => {
    expect(withOAuth({ redirectUrl, user: 'x user' })).toThrow(
      "it must be the name of a header your authentication sets, e.g. user: 'x-user-id', or (req) => string | undefined.",
    );
  });

  it('takes a redirectUrl alone, or with a client, scopes and a user', async () => {
    for (const oauth of [
      { redirectUrl },
      { redirectUrl, clientId: 'c1', clientSecret: 'cs-1', scopes: ['notes:read'], user: 'x-user-id' },
      { redirectUrl, user: () => 'u1' },
      { redirectUrl, privateOrigins: ['https://auth.internal:8443', 'http://10.0.0.5/'] },
    ]) {
      await withOAuth(oauth)().close();
    }
  });

  it('takes no forwardHeaders beside it: the client’s headers never reach a server users sign in to', () => {
    expect(() =>
      agentLoop({
        trellis: { mcp: { url, forwardHeaders: ['authorization'], oauth: { redirectUrl } } },
        logger: memoryLogger().logger,
      }),
    ).toThrow(
      "mcpTrellis: options 'oauth' and 'forwardHeaders' of one server exclude each other: with oauth each user's calls carry their own token, never a header of the client's; leave forwardHeaders out.",
    );
  });

  it('needs agentLoop, which serves the callback: mcpTrellis alone refuses it', () => {
    expect(() => mcpTrellis({ url, oauth: { redirectUrl } })).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_OAUTH_NEEDS_AGENT_LOOP' }),
    );
  });
});
