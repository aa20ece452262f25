import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { AdminOptions } from './admin/options';
import { adminRouter } from './admin/router';
import { activateBindings } from './binding/binding';
import { isInternalRequest, markerTrust, markerVerdict, removeMarker } from './self-call/marker';
import { hasSharedSecret, tokenSecret } from './shared/signed-token';
import { LiveJudge } from './judge/live-judge';
import { createJudgeRunner } from './judge/runner';
import { defaultLogger } from './shared/logger';
import type { ActiveBinding } from './loop/context';
import { refuseClusterWithoutSecret } from './self-call/cluster';
import { refusePlaceholderSecret } from './options/placeholder-secret';
import { ApprovalLedger } from './person/ledger';
import { openStore } from './store/options';
import { FleetLoops } from './telemetry/fleet-loops';
import { KeyBudget } from './store/key-budget';
import { refusedForKeyBudget } from './store/key-budget-refusal';
import { refusedForDeferredTools } from './tool-search/deferred-refusal';
import { SharedSettings } from './options/shared-settings';
import { replicaOf } from './store/replica';
import { ApprovalTokens } from './person/approval-token';
import { InputTokens } from './person/input-token';
import { isAmbiguousPath } from './self-call/routed-path';
import { AnswerIds } from './hand-back/answer-ids';
import { Continuations } from './hand-back/continuation';
import { InFlightLoops } from './loop/in-flight';
import { SelfCaller } from './loop/self-caller';
import { startLoop, type EarlierWork, type LoopServices } from './loop/start';
import { restoreEarlierWork } from './hand-back/restored-work';
import { refusedRequest } from './loop/refused-request';
import { LoopRecorder } from './telemetry/loop-records';
import { Telemetry } from './telemetry/loop-telemetry';
import type { MetricsEndpoint } from './telemetry/options';
import { configOf, type AgentLoopOptions } from './options/agent-loop';
import { settingsOf, type RunTimeSettings, type SettingsPatch } from './options/tunables';
import { LiveSettings } from './options/live-settings';
import type { JudgeView } from './judge/options';
import type { Rule } from './judge/rule';
import type { Trellis } from './types';
import type { Wire, WireRequest } from './loop/wire';
import { JUDGE_WIRE, wireFor } from './wire/wires';
import { SignIns } from './trellis/oauth/sign-ins';
import { loggedPath } from './shared/redact';
import { closeIdleWorkers } from './code-mode/warm-workers';

export interface AgentLoopMiddleware extends RequestHandler {
  /** `source`: who changed them, for the log line (default `settings.update()`) */
  settings: { get(): RunTimeSettings; update(partial: SettingsPatch, source?: string): RunTimeSettings };
  /** the judge's rules: read them, or replace them (validated like the option) for the loops that start from now on */
  judgeRules: { get(): JudgeView; replace(rules: Rule[], source?: string): JudgeView };
  /** the admin API and page, for `app.use('/admin', loop.admin({ key }))`; `{ auth: false }` when your own middleware guards it */
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
  const config = configOf(options);
  refuseClusterWithoutSecret(config.internalSecret);
  refusePlaceholderSecret(config.internalSecret);
  const logger = config.logger ?? defaultLogger();
  const owned: Trellis[] = [];
  const key = tokenSecret(config.internalSecret);
  const telemetry = Telemetry.create(config);
  const store = openStore(
    config.store,
    logger,
    telemetry?.metrics && telemetry.metrics.storeCall.bind(telemetry.metrics),
  );
  const signIns = new SignIns(key, logger, store);
  const bindings = activateBindings(config, logger, owned, signIns);
  const servesApp = markerTrust(key);
  const caller = new SelfCaller(
    key,
    config.forwardHeaders.map((name) => name.toLowerCase()),
    config.maxReplyBytes,
    config.selfUrl,
    config.selfCall,
  );
  const inFlight = new InFlightLoops();
  const settings = new LiveSettings(settingsOf(config), bindings, logger);
  const replica = replicaOf(config.replicaName);
  const keyBudget = new KeyBudget(
    store,
    logger,
    telemetry?.metrics && (() => telemetry.metrics?.keyBudgetUnenforced()),
  );
  let records: LoopRecorder | undefined;
  let loops: FleetLoops | undefined;
  const judge = new LiveJudge(
    config.judge,
    (option) =>
      createJudgeRunner(option, logger, telemetry?.metrics, (loopId, verdict) => records?.verdict(loopId, verdict)),
    logger,
  );
  if (config.store) {
    const refused = telemetry?.metrics && telemetry.metrics.storeChangeRefused.bind(telemetry.metrics);
    const secretShared = config.internalSecret !== undefined || hasSharedSecret;
    new SharedSettings({ store, replica, secret: key, secretShared, settings, judge, logger, refused });
  }
  const continuations = new Continuations(key, config.continuationTtlSec);
  const answerIds = new AnswerIds(config.store && { store, ttlMs: config.continuationTtlSec * 1000, logger });
  const services: LoopServices = {
    config,
    caller,
    continuations,
    answerIds,
    logger,
    settings: () => settings.current,
    get judge() {
      return judge.runner;
    },
    approvals: {
      tool: config.approval.tool,
      tokens: new ApprovalTokens(key, config.approval.ttlSec),
      ledger: new ApprovalLedger(store, config.approval.ttlSec),
      input: {
        tool: config.input.tool,
        maxRounds: config.input.maxRounds,
        tokens: new InputTokens(key, config.input.ttlSec),
        ledger: new ApprovalLedger(store, config.input.ttlSec),
      },
    },
    judgeWire: JUDGE_WIRE,
    telemetry,
    keyBudget,
    shutdown: inFlight.shutdownSignal,
  };

  const maxConcurrentLoops = config.maxConcurrentLoops ?? Infinity;

  /** A request the loop will not run (overload, shutdown) goes to the normal handler, saying why. */
  function passOn(
    res: Response,
    next: NextFunction,
    stop: 'overloaded' | 'shutdown',
    message: string,
    meta: { binding: string; wire: string } & Record<string, unknown>,
  ): void {
    res.setHeader('x-agent-loop-stop', stop);
    telemetry?.metrics?.loopNotStarted({ binding: meta.binding, wire: meta.wire }, stop);
    logger.warn(message, meta);
    next();
  }

  let warnedNoBody = false;
  function warnOnceNoBody(): void {
    if (warnedNoBody) return;
    warnedNoBody = true;
    logger.warn(
      'agent-loop sees no parsed body: mount express.json() before agentLoop(); requests pass on untouched until then',
    );
  }

  async function loopOrPass(
    req: Request,
    res: Response,
    next: NextFunction,
    wire: Wire,
    body: WireRequest,
    binding: ActiveBinding,
    earlier: EarlierWork,
  ): Promise<void> {
    if (refusedForDeferredTools(res, wire, body, binding.toolSearch)) return;
    const spend = await refusedForKeyBudget(keyBudget, settings.current.keyBudget, req, res, wire);
    if (spend === 'refused') return;
    const result = await startLoop(services, req, res, wire, body, binding, earlier, spend);
    if (result.kind === 'fallthrough') next();
  }

  const middleware = function agentLoopMiddleware(req: Request, res: Response, next: NextFunction): void {
    servesApp(req);
    if (signIns.serve(req, res)) return;
    const wire = req.method === 'POST' ? wireFor(req.path) : undefined;
    const verdict = wire && markerVerdict(req, key);
    removeMarker(req);
    if (!wire) return next();
    if (verdict === 'internal') return next();
    // A marker that does not verify is never trusted, and never starts a loop either: it may be one of our own turns
    // signed under another process's key (a cluster without a shared secret), and a loop there would self-call again.
    if (verdict === 'forged') {
      // another agentLoop's turn in this app (its own secret) is no forgery: it is just not ours to loop
      if (isInternalRequest(req))
        logger.debug("agent-loop passed on another agentLoop's turn", { path: loggedPath(req.originalUrl) });
      else
        logger.warn(
          'agent-loop ignored an X-MCP-Internal marker that does not verify; the request goes to the normal handler without the loop',
          { ip: req.ip, path: loggedPath(req.originalUrl) },
        );
      return next();
    }
    if (isAmbiguousPath(req.originalUrl)) {
      logger.warn(
        'agent-loop does not run on a path with dot segments or encoded dots or slashes; the request goes to the normal handler',
        { ip: req.ip },
      );
      return next();
    }
    const body: unknown = req.body;
    if (body === undefined) warnOnceNoBody();
    if (!wire.accepts(body)) return next();
    const binding = bindings.resolve(req, body, wire.modelOf(body, req));
    if (!binding) return next();
    if (refusedRequest(req, res, wire, body)) return;
    // a follow-up chained on an answer of another replica waits for the store to say which upstream reply it was
    const chained = answerIds.load(wire.chainedOn?.(body));
    if (chained) chained.then(() => serve(req, res, next, wire, body, binding)).catch(next);
    else serve(req, res, next, wire, body, binding);
  } as AgentLoopMiddleware;

  function serve(
    req: Request,
    res: Response,
    next: NextFunction,
    wire: Wire,
    body: WireRequest,
    binding: ActiveBinding,
  ) {
    const { request, earlier } = restoreEarlierWork(req, wire, body, binding, { continuations, answerIds }, logger);
    if (inFlight.closing)
      return passOn(res, next, 'shutdown', 'agent-loop is shutting down; passing the request to the normal handler', {
        binding: binding.name,
        wire: wire.name,
      });
    if (inFlight.size >= maxConcurrentLoops) {
      return passOn(res, next, 'overloaded', 'agent-loop overloaded; passing the request to the normal handler', {
        binding: binding.name,
        wire: wire.name,
        inFlight: inFlight.size,
        maxConcurrentLoops,
      });
    }
    const run = loopOrPass(req, res, next, wire, bindings.bodyFor(binding, request), binding, earlier).catch(
      function neverDrop(error: Error) {
        logger.error('agent-loop failed unexpectedly; passing the request on', {
          reason: error.message,
          stack: error.stack,
        });
        if (!res.headersSent) next();
        else if (!res.writableEnded) res.end();
      },
    );
    inFlight.track(run);
  }

  middleware.settings = { get: () => settings.get(), update: (partial, source) => settings.update(partial, source) };
  middleware.judgeRules = { get: () => judge.view(), replace: (rules, source) => judge.replaceRules(rules, source) };
  middleware.admin = function admin(adminOptions) {
    records ??= new LoopRecorder(config.telemetry?.captureContent === true);
    loops ??= new FleetLoops(store, replica, records, config.store !== undefined);
    const router = adminRouter(
      {
        settings,
        bindings,
        judge,
        loops,
        budgets: keyBudget,
        captureContent: config.telemetry?.captureContent === true,
        tokens: signIns.vault,
      },
      adminOptions,
      logger,
    );
    services.telemetry = Telemetry.recording(telemetry, records);
    return router;
  };
  middleware.oauthCallbacks = function oauthCallbacks(req, res, next) {
    if (!signIns.serve(req, res)) next();
  };
  middleware.metrics = telemetry?.metrics?.registry;
  middleware.ready = async function ready(signal) {
    const down: Record<string, string> = inFlight.closing ? { 'agent-loop': 'shutting down' } : {};
    if (store.unreachable !== undefined) down.store = `${store.description}: ${store.unreachable}`;
    await Promise.all(
      bindings.all.map(async function listedOnce({ name, catalog, trellis }) {
        // each user lists their own tools: there is no listing of the binding's to wait for
        if (trellis.forRequest) return;
        if (catalog.unlisted !== undefined) await catalog.tools(signal);
        if (catalog.unlisted !== undefined) down[`trellis ${name}`] = catalog.unlisted;
      }),
    );
    return down;
  };
  middleware.close = async function close() {
    if (inFlight.size > 0)
      logger.info('agent-loop draining: waiting for in-flight loops', {
        inFlight: inFlight.size,
        shutdownDrainSec: config.shutdownDrainSec,
      });
    const ended = await inFlight.drain(config.shutdownDrainSec);
    if (ended > 0)
      logger.warn('agent-loop drain ran out; in-flight loops ended with the shutdown note', {
        ended,
        shutdownDrainSec: config.shutdownDrainSec,
      });
    caller.close();
    await loops?.close();
    await Promise.all([...owned.map((trellis) => trellis.close?.()), store.close(), closeIdleWorkers()]);
  };
  return middleware;
}
