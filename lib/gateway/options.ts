import Joi from 'joi';
import { ADMIN_HINT, adminConfigSchema, type GatewayAdminConfig } from '../admin/gateway-admin';
import { MIN_CLIENT_KEY_CHARS } from './client-keys';
import { INFERENCE_ROUTES, isRoute } from './routes';
import {
  defaulted,
  option,
  required,
  schemaOf,
  schemasOf,
  validator,
  type OptionsIn,
  type OptionsOut,
} from '../options/declaration';
import { loopOptions, type AgentLoopOptions } from '../options/agent-loop';

/** what express.json() takes as its `limit` */
const isSize = (value: unknown) =>
  (Number.isInteger(value) && (value as number) > 0) ||
  (typeof value === 'string' && /^\d+(\.\d+)? ?(b|kb|mb|gb)$/i.test(value));

const upstreamOptions = {
  url: required<string>({
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    hint: "it must be the upstream's OpenAI-compatible base URL, e.g. 'http://127.0.0.1:11434/v1'",
  }),
  apiKeyEnv: option<string>({
    schema: Joi.string(),
    hint: "it must name an environment variable holding the upstream's API key, e.g. 'OPENAI_API_KEY'",
  }),
  /** what is forwarded under `/v1`, as `METHOD path` (default `INFERENCE_ROUTES`) */
  routes: option<string[]>({
    schema: Joi.array().items(
      Joi.string().custom((value, helpers) => (isRoute(value) ? value : helpers.error('any.invalid'))),
    ),
    hint:
      `it must list what the gateway forwards under /v1 as 'METHOD path' (a segment * matches any one), ` +
      `e.g. ${JSON.stringify(INFERENCE_ROUTES.slice(0, 2))}`,
  }),
};

/** What only createGateway's config holds, beside agentLoop's options (which agentLoop checks). */
export const gatewayOptions = {
  host: defaulted<string>({
    schema: Joi.string().default('127.0.0.1'),
    hint: "it must be a host name or address to listen on, e.g. '127.0.0.1'",
  }),
  port: defaulted<number>({
    schema: Joi.number().integer().min(0).max(65535).default(3000),
    hint: 'it must be a port number from 0 to 65535, e.g. 3000',
  }),
  upstream: required<OptionsIn<typeof upstreamOptions>>({
    schema: schemaOf(upstreamOptions),
    hint: "it must be { url: 'http://127.0.0.1:11434/v1', apiKeyEnv?: 'OPENAI_API_KEY' }",
    inner: upstreamOptions,
  }),
  /**
   * largest request body accepted from a client, e.g. '10mb' or bytes (the loop's own turns skip the parser, so it does
   * not bound them)
   */
  bodyLimit: defaulted<string | number>({
    schema: Joi.any()
      .custom((value, helpers) => (isSize(value) ? value : helpers.error('any.invalid')))
      .default('10mb'),
    hint: "it must be a size in b, kb, mb or gb, or a number of bytes, e.g. '10mb'",
  }),
  /** keys a client may send (`Authorization: Bearer <key>` or `x-api-key: <key>`) */
  clientKeys: option<string[]>({
    schema: Joi.array().items(Joi.string().min(MIN_CLIENT_KEY_CHARS)).min(1),
    hint:
      `it must be a list of keys of at least ${MIN_CLIENT_KEY_CHARS} characters each ` +
      'that clients send as Authorization: Bearer <key>, or use clientKeysEnv',
  }),
  /** an environment variable holding more, separated by commas or white space */
  clientKeysEnv: option<string>({
    schema: Joi.string(),
    hint:
      'it must name an environment variable holding the client keys, ' +
      "separated by commas, e.g. 'AGENT_LOOP_CLIENT_KEYS'",
  }),
  /** the admin API and page at `/admin`, behind the key in the environment variable `keyEnv` */
  admin: option<GatewayAdminConfig>({
    schema: adminConfigSchema,
    hint: ADMIN_HINT,
    doc: {
      range: '`{ keyEnv }`: the environment variable holding the admin key (16+ characters)',
      fallback: 'none: no admin routes',
      does:
        'the [admin API and page](admin.md#admin-api-and-page) at `/admin`; ' +
        'in your own app, `loop.admin({ key })` or `loop.admin({ auth: false })`',
    },
  }),
};

export type GatewayConfig = AgentLoopOptions & OptionsIn<typeof gatewayOptions>;

/**
 * The config once validated: the gateway's own keys with their defaults, agentLoop's options as given (agentLoop checks
 * them).
 */
export type ValidGatewayConfig = AgentLoopOptions & OptionsOut<typeof gatewayOptions>;

const { admin, ...listened } = schemasOf(gatewayOptions);

/**
 * agentLoop checks its own options; listed here so that a misspelt key is named among all the keys a config may hold.
 */
const loopKeys = Object.keys(loopOptions).map((key) => [key, Joi.any()]);

const gatewaySchema = Joi.object({ ...listened, ...Object.fromEntries(loopKeys), admin });

export const validGatewayConfig = validator<ValidGatewayConfig>('createGateway', gatewaySchema, gatewayOptions);

/** Throws the coded error createGateway would for `config`'s own keys (the loop's options are agentLoop's to check). */
export function validateGatewayConfig(config: unknown): void {
  validGatewayConfig(config);
}
