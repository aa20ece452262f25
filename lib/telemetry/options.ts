import Joi from 'joi';
import { option, schemasOf, type OptionsIn } from '../options/declaration';

/**
 * The part of a prom-client `Registry` the loop uses (prom-client 14 and 15 fit), so these types need no prom-client.
 */
export interface MetricsRegistry {
  contentType: string;
  metrics(): Promise<string>;
  getSingleMetric(name: string): unknown;
}

const isRegistry = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Record<string, unknown>).getSingleMetric === 'function';

const metricsOptions = {
  /** where the metrics register (default: prom-client's global registry) */
  registry: option<MetricsRegistry>({
    schema: Joi.any().custom((value, helpers) => (isRegistry(value) ? value : helpers.error('any.invalid'))),
    hint: "it must be a prom-client Registry, e.g. registry: new Registry() (import { Registry } from 'prom-client')",
  }),
  /** the metric names' prefix (default `agent_loop_`) */
  prefix: option<string>({
    schema: Joi.string().pattern(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'Prometheus metric name'),
    hint: "it must be a Prometheus metric name prefix (letters, digits, _ and :), e.g. prefix: 'agent_loop_'",
  }),
};

export type MetricsOption = OptionsIn<typeof metricsOptions>;

export const metricsOption = option<MetricsOption | false>({
  schema: Joi.alternatives(Joi.boolean().valid(false), Joi.object(schemasOf(metricsOptions))),
  hint:
    "it must be false or { registry?: a prom-client Registry, prefix?: 'agent_loop_' }, " +
    "e.g. metrics: { prefix: 'agent_loop_' }",
  doc: {
    range: '`{ registry?, prefix? }` or `false`',
    fallback: 'off (`createGateway`: on when prom-client is installed)',
    does: 'Prometheus metrics ([Metrics](observability.md#metrics-prometheus))',
  },
  inner: metricsOptions,
});

/** What `/metrics` serves: the registry's text exposition. */
export type MetricsEndpoint = Pick<MetricsRegistry, 'contentType' | 'metrics'>;

const telemetryOptions = {
  /** false: no spans even when @opentelemetry/api and an SDK are there (default true) */
  tracing: option<boolean>({ schema: Joi.boolean() }),
  /** record message contents, tool arguments and results on spans (default false: they may hold personal data) */
  captureContent: option<boolean>({ schema: Joi.boolean() }),
};

export type TelemetryOption = OptionsIn<typeof telemetryOptions>;

export const telemetryOption = option<TelemetryOption>({
  schema: Joi.object(schemasOf(telemetryOptions)),
  hint: 'it must be { tracing?: boolean, captureContent?: boolean }, e.g. telemetry: { captureContent: false }',
  doc: {
    range: '`{ tracing?, captureContent? }`',
    fallback: 'tracing on when `@opentelemetry/api` is installed; contents off',
    does:
      'OpenTelemetry spans ([Traces](observability.md#traces-opentelemetry-genai)); `captureContent` also ' +
      "puts messages, tool arguments and results (2,000 characters each) in the [admin API's loop " +
      'records](admin.md#admin-api-and-page)',
  },
  inner: telemetryOptions,
});
