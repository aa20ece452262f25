import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { activateBindings } from './binding';
import { markerKey, markerVerdict } from './internal';
import { createJudgeRunner } from './judge/runner';
import { defaultLogger } from './logger';
import type { ActiveBinding } from './loop/context';
import { InFlightLoops } from './loop/in-flight';
import { SelfCaller } from './loop/self-call';
import { startLoop, type ChatRequest, type LoopDeps } from './loop/start';
import { optionsSchema, settingsSchema, validate, type AgentLoopOptions, type Settings, type ValidOptions } from './options';
import type { Trellis } from './types';

export interface AgentLoopMiddleware extends RequestHandler {
  settings: { get(): Settings; update(partial: Partial<Settings>): Settings };
  close(): Promise<void>;
}

/** A chat request the loop can serve: messages it can carry on, and one answer asked for (a loop cannot give `n`). */
function isChatRequest(body: unknown): body is ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { messages, n } = body as { messages?: unknown; n?: unknown };
  if (n !== undefined && n !== null && n !== 1) return false;
  return Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'object' && m !== null && typeof m.role === 'string');
}

/** The agent loop as Express middleware: `app.use(express.json()); app.use(agentLoop(options))`. */
export function agentLoop(options: AgentLoopOptions = {}): AgentLoopMiddleware {
  const valid = validate<ValidOptions>(optionsSchema, options);
  const logger = valid.logger ?? defaultLogger();
  const owned: Trellis[] = [];
  const bindings = activateBindings(valid, logger, owned);
  const caller = new SelfCaller(markerKey(valid.internalSecret), valid.forwardHeaders.map((name) => name.toLowerCase()), valid.selfUrl);
  const inFlight = new InFlightLoops();
  let settings: Settings = { totalBudgetSec: valid.totalBudgetSec, defaultMaxTurns: valid.defaultMaxTurns, maxToolCallsPerTurn: valid.maxToolCallsPerTurn, maxTokensPerLoop: valid.maxTokensPerLoop };
  const deps: LoopDeps = {
    caller,
    logger,
    settings: () => settings,
    maxToolResultBytes: valid.maxToolResultBytes,
    maxRepeatedCalls: valid.maxRepeatedCalls,
    maxContextBytes: valid.maxContextBytes,
    judge: valid.judge && createJudgeRunner(valid.judge, logger),
    keepAliveSec: valid.keepAliveSec,
    onClientDisconnect: valid.onClientDisconnect,
    shutdown: inFlight.shutdownSignal,
  };

  const maxConcurrentLoops = valid.maxConcurrentLoops ?? Infinity;

  /** A request the loop will not run (overload, shutdown) goes to the normal handler, saying why. */
  function passOn(res: Response, next: NextFunction, stop: 'overloaded' | 'shutdown', message: string, meta: Record<string, unknown>): void {
    res.setHeader('x-agent-loop-stop', stop);
    logger.warn(message, meta);
    next();
  }

  let warnedNoBody = false;
  function warnOnceNoBody(): void {
    if (warnedNoBody) return;
    warnedNoBody = true;
    logger.warn('agent-loop sees no parsed body: mount express.json() before agentLoop(); requests pass on untouched until then');
  }

  async function loopOrPass(req: Request, res: Response, next: NextFunction, body: ChatRequest, binding: ActiveBinding): Promise<void> {
    const result = await startLoop(deps, req, res, body, binding);
    if (result.kind !== 'fallthrough') return;
    logger.info('agent-loop fell through to the normal handler', { binding: binding.name, reason: result.reason });
    next();
  }

  const middleware = function agentLoopMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== 'POST' || !req.path.endsWith('/chat/completions')) return next();
    const verdict = markerVerdict(req);
    if (verdict === 'internal') return next();
    if (verdict === 'forged') logger.warn('agent-loop ignored an X-MCP-Internal marker that does not verify', { ip: req.ip, path: req.originalUrl });
    const body: unknown = req.body;
    if (body === undefined) warnOnceNoBody();
    if (!isChatRequest(body)) return next();
    const binding = bindings.resolve(req, body);
    if (!binding) return next();
    if (inFlight.closing) return passOn(res, next, 'shutdown', 'agent-loop is shutting down; passing the request to the normal handler', { binding: binding.name });
    if (inFlight.size >= maxConcurrentLoops) {
      return passOn(res, next, 'overloaded', 'agent-loop overloaded; passing the request to the normal handler', { binding: binding.name, inFlight: inFlight.size, maxConcurrentLoops });
    }
    const run = loopOrPass(req, res, next, bindings.bodyFor(binding, body), binding).catch(function neverDrop(error: Error) {
      logger.error('agent-loop failed unexpectedly; passing the request on', { reason: error.message, stack: error.stack });
      if (!res.headersSent) next();
      else if (!res.writableEnded) res.end();
    });
    inFlight.track(run);
  } as AgentLoopMiddleware;

  middleware.settings = {
    get: () => ({ ...settings }),
    update(partial) {
      settings = validate<Settings>(settingsSchema, { ...settings, ...partial });
      return { ...settings };
    },
  };
  middleware.close = async function close() {
    if (inFlight.size > 0) logger.info('agent-loop draining: waiting for in-flight loops', { inFlight: inFlight.size, shutdownDrainSec: valid.shutdownDrainSec });
    const ended = await inFlight.drain(valid.shutdownDrainSec);
    if (ended > 0) logger.warn('agent-loop drain ran out; in-flight loops ended with the shutdown note', { ended, shutdownDrainSec: valid.shutdownDrainSec });
    caller.close();
    await Promise.all(owned.map((trellis) => trellis.close?.()));
  };
  return middleware;
}
