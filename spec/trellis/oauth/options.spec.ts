import { agentLoop, mcpTrellis } from '../../../lib';
import { memoryLogger } from '../../helpers/memory-logger';

const url = 'http://127.0.0.1:1/mcp';
const redirectUrl = 'https://gateway.example.com/oauth/callback';
const withOAuth = (oauth: unknown) => () =>
  agentLoop({ trellis: { mcp: { url, oauth } } as never, logger: memoryLogger().logger });

describe('trellis.mcp.oauth', () => {
  it.each([
    [
      { redirectUrl: 'nope' },
      "agentLoop: option 'trellis.mcp.oauth.redirectUrl' is \"nope\"; it must be the public URL of the callback agentLoop serves on its own app, e.g. redirectUrl: 'https://gateway.example.com/oauth/callback'.",
    ],
    [
      { redirectUrl: 'https://g.example.com/cb', clientSecret: 'cs-1' },
      `agentLoop: option 'trellis.mcp.oauth' is {"redirectUrl":"https://g.example.com/cb","clientSecret":"[redacted]"}; it must be { redirectUrl: 'https://gateway.example.com/oauth/callback', clientId?, clientSecret? or clientSecretEnv?, scopes?, user? }.`,
    ],
    [
      { redirectUrl, scopes: [] },
      "agentLoop: option 'trellis.mcp.oauth.scopes' is []; it must be a list of scopes to ask for, e.g. scopes: ['repo:read'].",
    ],
  ])('refuses %j at start-up, naming the option and the fix', (oauth, message) => {
    expect(withOAuth(oauth)).toThrow(expect.objectContaining({ code: 'ERR_AGENT_LOOP_INVALID_OPTION', message }));
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
