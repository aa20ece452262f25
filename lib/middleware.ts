import type { RequestHandler, Router } from 'express';
import type { AdminOptions } from './admin/options';
import type { MetricsEndpoint } from './telemetry/options';
import { configOf, type AgentLoopOptions } from './options/agent-loop';
import type { RunTimeSettings, SettingsPatch } from './options/tunables';
import type { JudgeView } from './judge/options';
import type { Rule } from './judge/rule';
import { assemble } from './middleware/parts';
import { handlerOf } from './middleware/handler';
import { adminOf, closed, readiness } from './middleware/methods';

export interface AgentLoopMiddleware extends RequestHandler {
  /** `source`: who changed them, for the log line (default `settings.update()`) */
  settings: { get(): RunTimeSettings; update(partial: SettingsPatch, source?: string): RunTimeSettings };
  /**
   * the judge's rules: read them, or replace them (validated like the option) for the loops that start from now on
   */
  judgeRules: { get(): JudgeView; replace(rules: Rule[], source?: string): JudgeView };
  /**
   * the admin API and page, for `app.use('/admin', loop.admin({ key }))`; `{ auth: false }` when your own middleware
   * guards it
   */
  admin(options: AdminOptions): Router;
  close(): Promise<void>;
  /** what is not ready, by name (`trellis <binding>`: never listed its tools, and why); empty when all is */
  ready(signal?: AbortSignal): Promise<Record<string, string>>;
  /**
   * the OAuth callbacks (each `trellis.mcp.oauth.redirectUrl`'s path, its consent page and metadata document) alone,
   * for an app that guards its routes before agentLoop: mount it ahead of the guard, since the person's browser brings
   * no client key
   */
  oauthCallbacks: RequestHandler;
  /** the registry the loop's metrics are in, with `metrics: {...}` on: serve it at `/metrics` */
  metrics?: MetricsEndpoint;
}

/** The agent loop as Express middleware: `app.use(express.json()); app.use(agentLoop(options))`. */
export function agentLoop(options: AgentLoopOptions = {}): AgentLoopMiddleware {
  const parts = assemble(configOf(options));
  const { config, settings, judge, signIns, telemetry } = parts;
  const middleware = handlerOf(parts) as AgentLoopMiddleware;
  middleware.settings = { get: () => settings.get(), update: (partial, source) => settings.update(partial, source) };
  middleware.judgeRules = { get: () => judge.view(), replace: (rules, source) => judge.replaceRules(rules, source) };
  middleware.admin = function admin(adminOptions) {
    return adminOf(parts, adminOptions);
  };
  middleware.oauthCallbacks = function oauthCallbacks(req, res, next) {
    if (!signIns.serve(req, res)) next();
  };
  middleware.metrics = telemetry?.metrics?.registry;
  middleware.ready = function ready(signal) {
    return readiness(parts, signal);
  };
  middleware.close = function close() {
    return closed(parts, config.shutdownDrainSec);
  };
  return middleware;
}
