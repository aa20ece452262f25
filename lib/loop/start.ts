import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Request, Response } from 'express';
import { logs, withFields } from '../shared/logger';
import { linkedController } from '../shared/signals';
import { DeferredTools, splitListing } from '../tool-search/deferred-tools';
import type { Config } from '../options/agent-loop';
import type { Settings } from '../options/tunables';
import type { ChatCompletion, Logger } from '../types';
import type { JudgeRunner } from '../judge/runner';
import type { Telemetry } from '../telemetry/loop-telemetry';
import { frontDoorAt, type JudgeWire, type Wire, type WireRequest } from './wire';
import { wireCallOf } from './turn-result';
import { answerApprovals, recordedAnswers, type ApprovalReader } from '../person/approval-decision';
import { approvalCalls } from '../person/approval-handback';
import { askPerson, inputCalls } from '../person/input-handback';
import { Deadline } from './deadline';
import type { AnswerIds } from '../hand-back/answer-ids';
import type { ActiveBinding, Loop, LoopStats } from './context';
import type { Continuations, Reopened } from '../hand-back/continuation';
import { RepeatedCalls } from './repeats';
import type { Reply } from './reply';
import { runLoop, type LoopResult } from './run';
import type { SelfCaller } from './self-caller';
import { keyMeter, type KeyBudget, type KeySpend } from '../store/key-budget';
import { consentHeaders, signedIn } from '../person/sign-in';
import { runCodeTool } from '../code-mode/declarations';

/** What every loop of one agentLoop shares: its config, and the parts agentLoop built from it at start-up. */
export interface LoopServices {
  config: Config;
  caller: SelfCaller;
  /** seals the record of a loop's work that a hand-back carries */
  continuations: Continuations;
  answerIds: AnswerIds;
  logger: Logger;
  /** the run-time settings in force now: a loop takes them as it starts */
  settings: () => Settings;
  judge?: JudgeRunner;
  /** the wire the judge's model speaks */
  judgeWire: JudgeWire;
  /** reads the client's approval answers and seals the calls handed to it for approval */
  approvals: ApprovalReader;
  telemetry?: Telemetry;
  /** what each client key spent of `keyBudget` */
  keyBudget: KeyBudget;
  /** aborted when a shutdown's drain runs out */
  shutdown: AbortSignal;
}

/** What a follow-up's verified continuations say the loops before it did: the tools that ran well, those a search loaded. */
export type EarlierWork = Pick<Reopened, 'succeeded' | 'loaded'>;

export const NOTHING_EARLIER: EarlierWork = { succeeded: [], loaded: [] };

// A marker must outlive the deadline a little: a self-call sent just before it must not be taken for an outsider's.
const MARKER_GRACE_MS = 5_000;

/** How a loop ended, for metrics and its span: the answer's stop reason, `fallthrough` or `client_gone`. */
function stopOf(result: LoopResult, clientGone: boolean): string {
  if (clientGone || result.kind === 'abandoned') return 'client_gone';
  return result.kind === 'answer' ? result.answer.stop : 'fallthrough';
}

/** Sends the answer to a client that is still there; for one that went away, only logs how its loop ended. */
async function deliver(
  result: LoopResult,
  reply: Reply,
  clientGone: boolean,
  logger: Logger,
  outcome: { loopId: string; binding: string; wire: string } & LoopStats,
): Promise<LoopResult> {
  if (clientGone || result.kind === 'abandoned') {
    const stop = result.kind === 'answer' ? result.answer.stop : result.kind;
    logger.info(`agent-loop ${result.kind === 'answer' ? 'finished' : 'abandoned'}: the client went away`, {
      ...outcome,
      stop,
    });
    return { kind: 'abandoned' };
  }
  if (result.kind === 'answer') {
    const held = reply.beforeSend?.(result.answer);
    if (held) await held;
    reply.send(result.answer, outcome);
    logger.info('agent-loop answered', { ...outcome, stop: result.answer.stop, stream: reply.streams });
  } else {
    logger.info('agent-loop fell through to the normal handler', {
      loopId: outcome.loopId,
      binding: outcome.binding,
      wire: outcome.wire,
      reason: result.reason,
    });
  }
  return result;
}

/** The judge's calls go to its wire's path beside the client's. */
function judgeUrlOf(url: string, wire: Wire, judgeWire: JudgeWire): string {
  if (wire.path === judgeWire.path) return url;
  const parsed = new URL(url);
  const at = frontDoorAt(wire, parsed.pathname);
  parsed.pathname = parsed.pathname.slice(0, at < 0 ? parsed.pathname.length : at) + judgeWire.path;
  // Gemini's stream form: the judge's call is a JSON one
  if (parsed.searchParams.has('alt')) parsed.searchParams.delete('alt');
  return parsed.toString();
}

/**
 * Sets up one loop for one client request (deadline, disconnect watch, tools, the wire's conversation and reply),
 * runs it, and sends its answer. `earlier`: what the request's continuation tokens say: the tools that ran well, which
 * alone (with this loop's own turns) unlock the hierarchy gate unless the client's history is trusted, and the tools a
 * search loaded, offered again from turn 1 in the same order. Only a fall-through is left to the caller. A client that went away never falls through: with
 * `onClientDisconnect: 'abort'` its loop is cancelled, with 'finish' it runs to its end and its outcome is logged.
 */
export async function startLoop(
  services: LoopServices,
  req: Request,
  res: Response,
  wire: Wire,
  request: WireRequest,
  configured: ActiveBinding,
  earlier: EarlierWork = NOTHING_EARLIER,
  /** what the client key spent as the loop's budget check read it */
  keySpend?: KeySpend,
): Promise<LoopResult> {
  const { approvals } = wire;
  const asker = services.approvals.input;
  const settled = approvals?.settle(services.approvals, req, configured.name, request);
  const body = settled?.body ?? request;
  const url = services.caller.urlFor(req);
  const agent = services.caller.agentFor(req);
  const { config, judge } = services;
  const settings = services.settings();
  const deadline = new Deadline(settings.totalBudgetSec, services.shutdown);
  // The loop's signal: aborted by the deadline, or by a client that went away.
  const { controller: cancel, unlink } = linkedController(deadline.signal);
  // each of a turn's tool calls (up to maxToolCallsPerTurn, 64) listens to it: no leak warning past 10
  setMaxListeners(0, cancel.signal);
  let clientGone = false;
  const onClose = () => {
    if (res.writableEnded) return;
    clientGone = true;
    if (config.onClientDisconnect === 'abort') cancel.abort(new Error('client disconnected'));
  };
  res.once('close', onClose);
  const { signal } = cancel;
  // randomUUID draws on a cached entropy pool; randomBytes asked OpenSSL on every loop.
  const id = randomUUID().replace(/-/g, '').slice(0, 16);
  // Before the first byte, so streamed answers and fall-throughs carry it too.
  res.setHeader('x-agent-loop-id', id);
  const requestId = req.headers['x-request-id'];
  const logger = typeof requestId === 'string' ? withFields(services.logger, { requestId }) : services.logger;
  const asked = wire.modelOf(body, req);
  const model = typeof asked === 'string' ? asked : '';
  const stats: LoopStats = { turns: 0, toolCalls: 0, blocked: 0, repeated: 0, elided: 0 };
  const marker = services.caller.marker(id, deadline.expiresAt + MARKER_GRACE_MS);
  // Last before the `try`: whatever starts a loop's record is sure to reach the `finally` that ends it.
  const telemetry = services.telemetry?.loop(req, configured.name, model, id, wire.name);
  let result: LoopResult = { kind: 'fallthrough', reason: 'error' };
  let reply: Reply | undefined;
  const succeeded = new Set(earlier.succeeded);
  const loaded: string[] = [];
  let binding = configured;
  try {
    const access = await signedIn(configured, req, signal);
    if ('binding' in access) binding = access.binding;
    const split = splitListing('consent' in access ? [] : await binding.catalog.tools(signal), binding.toolSearch);
    const session = wire.open(
      body,
      {
        loopId: id,
        tools: binding.codeMode ? [runCodeTool(split.offered, binding.codeMode)] : [...split.offered],
        servesClientSearch: binding.toolSearch !== false && !binding.toolSearch.native,
        countsTokens: settings.maxTokensPerLoop !== undefined || settings.keyBudget !== undefined,
        maxContextBytes: config.maxContextBytes,
        stats,
        logger,
        handBacks: { continuations: services.continuations, req, binding: binding.name, succeeded, loaded },
        answerIds: services.answerIds,
        approvalTool: services.approvals.tool,
        inputTool: services.approvals.input?.tool ?? '',
      },
      req,
    );
    const answer = (reply = session.reply(res, {
      keepAliveSec: config.keepAliveSec,
      signal,
      judged: judge !== undefined,
    }));
    const { conversation, reader } = session;
    const clientTools = new Set(session.clientTools);
    // The client's history is text it wrote: what ran well there is read from the text, and only when trusted.
    if (config.trustClientHistory) for (const tool of wire.succeededIn(conversation.history)) succeeded.add(tool);
    const loop: Loop = {
      id,
      req,
      res,
      config,
      settings,
      binding,
      maxTurns: binding.maxTurns ?? settings.defaultMaxTurns,
      deadline,
      wire: wire.name,
      conversation,
      clientTools,
      toolSearch: DeferredTools.open(
        { held: split.held, client: session.clientSearch, config: binding.toolSearch, earlier: earlier.loaded, loaded },
        conversation,
        clientTools,
      ),
      succeeded,
      signal,
      logger,
      verbose: logs(logger, 'info'),
      stats,
      reply: answer,
      onToolProgress: answer.streams ? () => answer.toolProgress?.() : undefined,
      onToolTask: answer.streams ? (tool, task) => answer.toolTask?.(tool, task) : undefined,
      repeats: new RepeatedCalls(config.maxRepeatedCalls),
      keyBudget: keyMeter(services.keyBudget, settings.keyBudget, req, keySpend),
      judge,
      approvalTool: session.approvalTool,
      telemetry,
      complete(turn, turnSignal, onText, watch) {
        const call = () =>
          services.caller.turn(
            req,
            turn,
            { url, agent, marker, signal: turnSignal, trace: watch?.headers, upstreamHeaders: wire.upstreamHeaders },
            reader,
            onText,
          );
        return watch ? watch.within(call) : call();
      },
      judgeCompletion: async (turn, turnSignal) => {
        const { reply } = await services.caller.turn(
          req,
          { ...turn, stream: false },
          { url: judgeUrlOf(url, wire, services.judgeWire), agent, marker, signal: turnSignal },
          services.judgeWire.reader,
        );
        return reply as ChatCompletion;
      },
      askApproval: (pending) => approvalCalls(loop, services.approvals.tokens, pending).map((call) => wireCallOf(call)),
      input: asker && session.inputTool ? { tool: session.inputTool, maxRounds: asker.maxRounds } : undefined,
      askInput: (pending) => (asker ? inputCalls(loop, asker.tokens, pending) : []),
    };
    if ('consent' in access) {
      result = {
        kind: 'answer',
        answer: { stop: 'authorization', text: '', note: consentHeaders(res, access.consent) },
      };
      return await deliver(result, answer, clientGone, logger, {
        loopId: id,
        binding: binding.name,
        wire: wire.name,
        ...stats,
      });
    }
    if (settled && approvals) {
      const asksAgain = await answerApprovals(loop, await recordedAnswers(services.approvals, settled.decisions));
      // a follow-up that falls through hands the normal handler the conversation with every call answered
      req.body = approvals.withItems(req.body as WireRequest, conversation.items);
      // a tool that asks again is asked before any turn: its call still waits
      if (asksAgain.length > 0) {
        const [stop, fields] = askPerson(loop, undefined, asksAgain);
        result = { kind: 'answer', answer: { stop, text: '', ...fields } };
      }
    }
    if (result.kind !== 'answer') result = await runLoop(loop);
    return await deliver(result, answer, clientGone, logger, {
      loopId: id,
      binding: binding.name,
      wire: wire.name,
      ...stats,
    });
  } finally {
    telemetry?.ended(stopOf(result, clientGone), stats, result.kind === 'answer' ? result.answer.usage : undefined);
    deadline.clear();
    unlink();
    res.removeListener('close', onClose);
    reply?.dispose();
  }
}
