import type { IncomingMessage } from 'node:http';
import Joi from 'joi';
import { AgentLoopError } from '../../errors';
import { option, required, type OptionsIn } from '../../options/declaration';

/** a header name, as RFC 9110 spells a token */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Who the user is: the client's identity (its key, hashed) by default, else a header the operator's own
 * authentication sets, else a function.
 */
export type OAuthUser = string | ((req: IncomingMessage) => string | undefined);

export const oauthOptions = {
  redirectUrl: required<string>({
    schema: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .pattern(/^[^#]*$/, { name: 'no fragment' }),
    hint:
      'it must be the public URL of the callback agentLoop serves on its own app, ' +
      "e.g. redirectUrl: 'https://gateway.example.com/oauth/callback'",
    qualified: true,
  }),
  clientId: option<string>({
    schema: Joi.string(),
    hint: "it must be the client id the authorization server issued, e.g. clientId: 'agent-loop'",
    qualified: true,
  }),
  clientSecret: option<string>({
    schema: Joi.string(),
    hint:
      'it must be the client secret the authorization server issued with clientId ' +
      "(in the gateway config: clientSecretEnv: 'MCP_CLIENT_SECRET')",
    qualified: true,
  }),
  /** the gateway config's way: the secret stays out of the file */
  clientSecretEnv: option<string>({
    schema: Joi.string(),
    hint: "it must name an environment variable holding the client secret, e.g. clientSecretEnv: 'MCP_CLIENT_SECRET'",
    qualified: true,
  }),
  scopes: option<string[]>({
    schema: Joi.array().items(Joi.string().pattern(/^\S+$/)).min(1),
    hint: "it must be a list of scopes to ask for, e.g. scopes: ['repo:read']",
    qualified: true,
  }),
  privateOrigins: option<string[]>({
    schema: Joi.array()
      .items(
        Joi.string()
          .uri({ scheme: ['http', 'https'] })
          .pattern(/^https?:\/\/[^/?#]+\/?$/, { name: 'origin' }),
      )
      .min(1),
    hint:
      'it must be a list of origins (scheme, host, port) ' +
      'the sign-in may reach on private or loopback addresses, ' +
      "e.g. privateOrigins: ['https://auth.internal:8443']",
    qualified: true,
  }),
  user: option<OAuthUser>({
    schema: Joi.alternatives().try(Joi.string().pattern(HEADER_NAME), Joi.function()),
    hint:
      'it must be the name of a header your authentication sets, ' +
      "e.g. user: 'x-user-id', or (req) => string | undefined",
    qualified: true,
  }),
};

export type OAuthOptions = OptionsIn<typeof oauthOptions>;

/** The options with the client secret read from `clientSecretEnv`, once, at start-up. */
export function withSecret(options: OAuthOptions): OAuthOptions {
  const { clientSecretEnv, ...rest } = options;
  if (clientSecretEnv === undefined) return options;
  const clientSecret = process.env[clientSecretEnv];
  if (!clientSecret) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `agentLoop: option 'trellis.mcp.oauth.clientSecretEnv' names ${clientSecretEnv}, which is not set; set it ` +
        `to the client secret the authorization server issued with clientId, or leave clientSecretEnv out.`,
    );
  }
  return { ...rest, clientSecret };
}

export const oauthOption = option<OAuthOptions>({
  schema: Joi.object({
    redirectUrl: oauthOptions.redirectUrl.schema,
    clientId: oauthOptions.clientId.schema,
    clientSecret: oauthOptions.clientSecret.schema,
    clientSecretEnv: oauthOptions.clientSecretEnv.schema,
    scopes: oauthOptions.scopes.schema,
    privateOrigins: oauthOptions.privateOrigins.schema,
    user: oauthOptions.user.schema,
  })
    .with('clientSecret', 'clientId')
    .with('clientSecretEnv', 'clientId')
    .oxor('clientSecret', 'clientSecretEnv')
    .messages({
      'object.with': '{{#main}} goes with the clientId it was issued for: give clientId beside it',
      'object.oxor': 'give clientSecret or clientSecretEnv, not both',
    }),
  hint:
    "it must be { redirectUrl: 'https://gateway.example.com/oauth/callback', " +
    'clientId?, clientSecret? or clientSecretEnv?, scopes?, privateOrigins?, user? }',
  qualified: true,
  inner: oauthOptions,
  doc: {
    range:
      '`{ redirectUrl, clientId?, clientSecret? or clientSecretEnv?, ' +
      'scopes?, privateOrigins?, user? }` (`url` servers only)',
    fallback: 'none',
    does:
      'each user signs in to the server (OAuth 2.1: discovery, registration, PKCE); ' +
      'the loop answers with the consent link until they did ([OAuth](mcp.md#oauth))',
  },
});
