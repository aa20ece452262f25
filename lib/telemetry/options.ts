/** The part of a prom-client `Registry` the loop uses (prom-client 14 and 15 fit), so these types need no prom-client. */
export interface MetricsRegistry {
  contentType: string;
  metrics(): Promise<string>;
  getSingleMetric(name: string): unknown;
}

export interface MetricsOption {
  /** where the metrics register (default: prom-client's global registry) */
  registry?: MetricsRegistry;
  /** the metric names' prefix (default `agent_loop_`) */
  prefix?: string;
}

/** What `/metrics` serves: the registry's text exposition. */
export type MetricsEndpoint = Pick<MetricsRegistry, 'contentType' | 'metrics'>;

export interface TelemetryOption {
  /** false: no spans even when @opentelemetry/api and an SDK are there (default true) */
  tracing?: boolean;
  /** record message contents, tool arguments and results on spans (default false: they may hold personal data) */
  captureContent?: boolean;
}
