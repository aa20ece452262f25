import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { AdminOptions } from './admin/options';
import { adminRouter } from './admin/router';
import { activateBindings, type Bindings } from './binding/binding';
import { isInternalRequest, markerTrust, markerVerdict, removeMarker } from './self-call/marker';
import { hasSharedSecret, tokenSecret } from './shared/signed-token';
import { LiveJudge } from './judge/live-judge';
import { createJudgeRunner } from './judge/runner';
import { defaultLogger } from './shared/logger';
import { setStop } from './shared/stop';
import type { Store } from './store/store';
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
import { ApprovalTokens } from './person/approval';
import { InputTokens } from './person/input';
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
import { configOf, type AgentLoopOptions, type Config } from './options/agent-loop';
import { settingsOf, type RunTimeSettings, type SettingsPatch } from './options/tunables';
import { LiveSettings } from './options/live-settings';
import type { JudgeView } from './judge/options';
import type { Rule } from './judge/rule';
import type { Logger, Trellis } from './types';
import type { Wire, WireRequest } from './loop/wire';
import { JUDGE_WIRE, wireFor } from './wire/wires';
import { SignIns } from './trellis/oauth/sign-ins';
import { loggedPath } from './shared/redact';
import { closeIdleWorkers } from './code-mode/warm-workers';

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

/** What one agentLoop() holds, made once at factory time and shared by its handler and its methods. */
interface Parts {
  config: Config;
  logger: Logger;
  key: Buffer;
  owned: Trellis[];
  telemetry: Telemetry | undefined;
  store: Store;
  signIns: SignIns;
  bindings: Bindings;
  servesApp: (req: Request) => void;
  caller: SelfCaller;
  inFlight: InFlightLoops;
  settings: LiveSettings;
  replica: string;
  keyBudget: KeyBudget;
  judge: LiveJudge;
  continuations: Continuations;
  answerIds: AnswerIds;
  services: LoopServices;
  maxConcurrentLoops: number;
  warnedNoBody: boolean;
  admin: AdminParts;
}

/** The parts the loops' services are made of. */
type Made = Omit<Parts, 'admin' | 'maxConcurrentLoops' | 'warnedNoBody' | 'services'>;

/** Made by the first `admin()`. */
interface AdminParts {
  records?: LoopRecorder;
  loops?: FleetLoops;
}

/** One request the loop may take, as the handler read it. */
interface Asked {
  req: Request;
  res: Response;
  next: NextFunction;
  wire: Wire;
  body: WireRequest;
  binding: ActiveBinding;
}

/** The options checked, the store opened, the bindings activated: everything a request will need, in that order. */
function assemble(config: Config): Parts {
  const opened = openedFor(config);
  const { logger, key, telemetry, store, bindings } = opened;
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
  const admin: AdminParts = {};
  const judge = new LiveJudge(
    config.judge,
    (option) =>
      createJudgeRunner(option, logger, telemetry?.metrics, (loopId, verdict) =>
        admin.records?.verdict(loopId, verdict),
      ),
    logger,
  );
  if (config.store) shareSettings(config, opened, replica, settings, judge);
  const continuations = new Continuations(key, config.continuationTtlSec);
  const answerIds = new AnswerIds(config.store && { store, ttlMs: config.continuationTtlSec * 1000, logger });
  const made = {
    ...opened,
    servesApp,
    caller,
    inFlight,
    settings,
    replica,
    keyBudget,
    judge,
    continuations,
    answerIds,
  };
  const maxConcurrentLoops = config.maxConcurrentLoops ?? Infinity;
  return { ...made, admin, maxConcurrentLoops, warnedNoBody: false, services: servicesOf(made) };
}

/** The secrets refused or derived, the telemetry, the store and the bindings. */
function openedFor(config: Config) {
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
  return { config, logger, owned, key, telemetry, store, signIns, bindings };
}

/** With a store, the live settings and the judge's rules are the fleet's: a change on one replica reaches all. */
function shareSettings(
  config: Config,
  { telemetry, store, key, logger }: ReturnType<typeof openedFor>,
  replica: string,
  settings: LiveSettings,
  judge: LiveJudge,
): void {
  const refused = telemetry?.metrics && telemetry.metrics.storeChangeRefused.bind(telemetry.metrics);
  const secretShared = config.internalSecret !== undefined || hasSharedSecret;
  new SharedSettings({ store, replica, secret: key, secretShared, settings, judge, logger, refused });
}

/** What every loop this middleware starts is given. */
function servicesOf(parts: Made): LoopServices {
  const { config, key, store, settings, judge } = parts;
  return {
    config,
    caller: parts.caller,
    continuations: parts.continuations,
    answerIds: parts.answerIds,
    logger: parts.logger,
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
    telemetry: parts.telemetry,
    keyBudget: parts.keyBudget,
    shutdown: parts.inFlight.shutdownSignal,
  };
}

/** The handler: a request on a wire's path that is not one of our own turns may start a loop. */
function handlerOf(parts: Parts): RequestHandler {
  const { servesApp, signIns, key, logger, bindings, answerIds } = parts;
  return function agentLoopMiddleware(req: Request, res: Response, next: NextFunction): void {
    servesApp(req);
    if (signIns.serve(req, res)) return;
    const wire = req.method === 'POST' ? wireFor(req.path) : undefined;
    const verdict = wire && markerVerdict(req, key);
    removeMarker(req);
    if (!wire) return next();
    if (verdict === 'internal') return next();
    if (verdict === 'forged') return passForged(logger, req, next);
    if (isAmbiguousPath(req.originalUrl)) {
      logger.warn(
        'agent-loop does not run on a path with dot segments or encoded dots or slashes; ' +
          'the request goes to the normal handler',
        { ip: req.ip },
      );
      return next();
    }
    const body: unknown = req.body;
    if (body === undefined) warnOnceNoBody(parts);
    if (!wire.accepts(body)) return next();
    const binding = bindings.resolve(req, body, wire.modelOf(body, req));
    if (!binding) return next();
    if (refusedRequest(req, res, wire, body)) return;
    const asked: Asked = { req, res, next, wire, body, binding };
    // a follow-up chained on an answer of another replica waits for the store to say which upstream reply it was
    const chained = answerIds.load(wire.chainedOn?.(body));
    if (chained) chained.then(() => serve(parts, asked)).catch(next);
    else serve(parts, asked);
  };
}

/**
 * A marker that does not verify is never trusted, and never starts a loop either: it may be one of our own turns
 * signed under another process's key (a cluster without a shared secret), and a loop there would self-call again.
 */
function passForged(logger: Logger, req: Request, next: NextFunction): void {
  // another agentLoop's turn in this app (its own secret) is no forgery: it is just not ours to loop
  if (isInternalRequest(req))
    logger.debug("agent-loop passed on another agentLoop's turn", { path: loggedPath(req.originalUrl) });
  else
    logger.warn(
      'agent-loop ignored an X-MCP-Internal marker that does not verify; ' +
        'the request goes to the normal handler without the loop',
      { ip: req.ip, path: loggedPath(req.originalUrl) },
    );
  next();
}

function warnOnceNoBody(parts: Parts): void {
  if (parts.warnedNoBody) return;
  parts.warnedNoBody = true;
  parts.logger.warn(
    'agent-loop sees no parsed body: mount express.json() before agentLoop(); requests pass on untouched until then',
  );
}

/** The earlier work restored, and the loop started unless shutdown or overload pass the request on. */
function serve(parts: Parts, asked: Asked): void {
  const { inFlight, maxConcurrentLoops, logger } = parts;
  const { req, res, next, wire, binding } = asked;
  const { continuations, answerIds } = parts;
  const { request, earlier } = restoreEarlierWork(req, wire, asked.body, binding, { continuations, answerIds }, logger);
  if (inFlight.closing)
    return passOn(parts, asked, 'shutdown', 'agent-loop is shutting down; passing the request to the normal handler');
  if (inFlight.size >= maxConcurrentLoops) {
    return passOn(parts, asked, 'overloaded', 'agent-loop overloaded; passing the request to the normal handler', {
      inFlight: inFlight.size,
      maxConcurrentLoops,
    });
  }
  const run = loopOrPass(parts, asked, parts.bindings.bodyFor(binding, request), earlier).catch(function neverDrop(
    error: Error,
  ) {
    logger.error('agent-loop failed unexpectedly; passing the request on', {
      reason: error.message,
      stack: error.stack,
    });
    if (!res.headersSent) next();
    else if (!res.writableEnded) res.end();
  });
  inFlight.track(run);
}

/** A request the loop will not run (overload, shutdown) goes to the normal handler, saying why. */
function passOn(
  { telemetry, logger }: Parts,
  { res, next, binding, wire }: Asked,
  stop: 'overloaded' | 'shutdown',
  message: string,
  more?: Record<string, unknown>,
): void {
  setStop(res, stop);
  const meta = { binding: binding.name, wire: wire.name };
  telemetry?.metrics?.loopNotStarted(meta, stop);
  logger.warn(message, more ? { ...meta, ...more } : meta);
  next();
}

async function loopOrPass(parts: Parts, asked: Asked, body: WireRequest, earlier: EarlierWork): Promise<void> {
  const { req, res, wire, binding } = asked;
  if (refusedForDeferredTools(res, wire, body, binding.toolSearch)) return;
  const spend = await refusedForKeyBudget(parts.keyBudget, parts.settings.current.keyBudget, req, res, wire);
  if (spend === 'refused') return;
  const result = await startLoop(parts.services, req, res, wire, body, binding, earlier, spend);
  if (result.kind === 'fallthrough') asked.next();
}

/** The admin API and page; the first call starts recording loops for it. */
function adminOf(parts: Parts, adminOptions: AdminOptions): Router {
  const { config, store, replica, settings, bindings, judge, keyBudget, signIns, logger } = parts;
  const records = (parts.admin.records ??= new LoopRecorder(config.telemetry?.captureContent === true));
  const loops = (parts.admin.loops ??= new FleetLoops(store, replica, records, config.store !== undefined));
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
  parts.services.telemetry = Telemetry.recording(parts.telemetry, records);
  return router;
}

async function readiness({ inFlight, store, bindings }: Parts, signal?: AbortSignal): Promise<Record<string, string>> {
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
}

async function closed(parts: Parts, shutdownDrainSec: number): Promise<void> {
  const { inFlight, logger } = parts;
  if (inFlight.size > 0)
    logger.info('agent-loop draining: waiting for in-flight loops', { inFlight: inFlight.size, shutdownDrainSec });
  const ended = await inFlight.drain(shutdownDrainSec);
  if (ended > 0)
    logger.warn('agent-loop drain ran out; in-flight loops ended with the shutdown note', { ended, shutdownDrainSec });
  parts.caller.close();
  await parts.admin.loops?.close();
  await Promise.all([...parts.owned.map((trellis) => trellis.close?.()), parts.store.close(), closeIdleWorkers()]);
}
