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
import type { LoopTelemetry, Telemetry } from '../telemetry/loop-telemetry';
import { frontDoorAt } from './front-door';
import type { JudgeWire, Wire, WireRequest } from './wire';
import type { TurnReader, WireApprovals } from './wire';
import { recordedAnswers, type ApprovalReader, type PersonDecision } from '../person/approval-decision';
import { answerApprovals } from '../person/answers';
import { approvalCalls, askPerson, inputCalls } from '../person/hand-back';
import { Deadline } from './deadline';
import type { AnswerIds } from '../hand-back/answer-ids';
import type { ActiveBinding, Loop, LoopLogFields, LoopStats } from './context';
import type { Continuations, Reopened } from '../hand-back/continuation';
import { RepeatedCalls } from './repeats';
import type { Reply } from './reply';
import { runLoop, type LoopResult } from './run';
import type { SelfCaller } from './self-caller';
import { keyMeter, type KeyBudget, type KeySpend } from '../store/key-budget';
import { consentHeaders, signedIn } from '../person/sign-in';
import { SIGN_IN } from '../person/question';
import { declaration, runCodeTool } from '../code-mode/declarations';

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

/**
 * What a follow-up's verified continuations say the loops before it did: the tools that ran well, those a search
 * loaded.
 */
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
  fields: LoopLogFields,
  stats: LoopStats,
): Promise<LoopResult> {
  if (clientGone || result.kind === 'abandoned') {
    const stop = result.kind === 'answer' ? result.answer.stop : result.kind;
    logger.info(`agent-loop ${result.kind === 'answer' ? 'finished' : 'abandoned'}: the client went away`, {
      ...fields,
      ...stats,
      stop,
    });
    return { kind: 'abandoned' };
  }
  if (result.kind === 'answer') {
    const held = reply.beforeSend?.(result.answer);
    if (held) await held;
    const outcome = { ...fields, ...stats };
    reply.send(result.answer, outcome);
    logger.info('agent-loop answered', { ...outcome, stop: result.answer.stop, stream: reply.streams });
  } else {
    logger.info('agent-loop fell through to the normal handler', { ...fields, reason: result.reason });
  }
  return result;
}

/** The judge's calls go to its wire's path beside the client's. */
function judgeUrlOf(url: string, wire: Wire, judgeWire: JudgeWire): string {
  if (wire.routes.some((route) => route.source === judgeWire.path)) return url;
  const parsed = new URL(url);
  const at = frontDoorAt(wire, parsed.pathname);
  parsed.pathname = parsed.pathname.slice(0, at < 0 ? parsed.pathname.length : at) + judgeWire.path;
  // Gemini's stream form: the judge's call is a JSON one
  if (parsed.searchParams.has('alt')) parsed.searchParams.delete('alt');
  return parsed.toString();
}

type Listing = ReturnType<typeof splitListing>;

/** One loop as startLoop set it up, before its first turn: what its steps share. */
interface Setup {
  client: ReturnType<typeof watchedClient>;
  services: LoopServices;
  req: Request;
  res: Response;
  wire: Wire;
  settings: Settings;
  deadline: Deadline;
  signal: AbortSignal;
  id: string;
  logger: Logger;
  stats: LoopStats;
  telemetry: LoopTelemetry | undefined;
  url: string;
  agent: ReturnType<SelfCaller['agentFor']>;
  marker: string;
  earlier: EarlierWork;
  keySpend: KeySpend | undefined;
}

/**
 * Sets up one loop for one client request (deadline, disconnect watch, tools, the wire's conversation and reply),
 * runs it, and sends its answer. `earlier`: what the request's continuation tokens say: the tools that ran well,
 * which alone (with this loop's own turns) unlock the hierarchy gate unless the client's history is trusted, and the
 * tools a search loaded, offered again from turn 1 in the same order. Only a fall-through is left to the caller. A
 * client that went away never falls through: with `onClientDisconnect: 'abort'` its loop is cancelled, with 'finish'
 * it runs to its end and its outcome is logged.
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
  const settled = wire.approvals?.settle(services.approvals, req, configured.name, request);
  const body = settled?.body ?? request;
  const setup = setUp({ services, req, res, wire, earlier, keySpend }, body, configured.name);
  const { client, deadline, telemetry, stats } = setup;
  let result: LoopResult = { kind: 'fallthrough', reason: 'error' };
  let reply: Reply | undefined;
  try {
    const access = await signedIn(configured, req, client.signal);
    const binding = 'binding' in access ? access.binding : configured;
    const listed = 'consent' in access ? [] : await binding.catalog.tools(client.signal);
    const split = splitListing(listed, binding.toolSearch);
    const opened = openedSession(setup, binding, body, split);
    reply = opened.reply;
    const loop = loopOf(setup, binding, split, opened);
    if ('consent' in access) {
      const note = consentHeaders(res, access.consent);
      result = { kind: 'answer', answer: { stop: SIGN_IN.stop, text: '', note } };
    } else {
      if (settled && wire.approvals) {
        result = (await settledApprovals(loop, services.approvals, wire.approvals, settled.decisions)) ?? result;
      }
      if (result.kind !== 'answer') result = await runLoop(loop);
    }
    return await deliver(result, opened.reply, client.gone, setup.logger, loop.logFields, stats);
  } finally {
    telemetry?.ended(stopOf(result, client.gone), stats, result.kind === 'answer' ? result.answer.usage : undefined);
    deadline.clear();
    client.unwatch();
    reply?.dispose();
  }
}

/** The loop's deadline, its id, logger and counters, the client watched and the marker its turns carry. */
function setUp(
  start: Pick<Setup, 'services' | 'req' | 'res' | 'wire' | 'earlier' | 'keySpend'>,
  body: WireRequest,
  bindingName: string,
): Setup {
  const { services, req, res, wire } = start;
  const url = services.caller.urlFor(req);
  const agent = services.caller.agentFor(req);
  const settings = services.settings();
  const deadline = new Deadline(settings.totalBudgetSec, services.shutdown);
  const client = watchedClient(res, services.config, deadline.signal);
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
  // Last: whatever starts a loop's record is sure to reach the `finally` that ends it.
  const telemetry = services.telemetry?.loop(req, bindingName, model, id, wire.name);
  return {
    ...start,
    settings,
    deadline,
    client,
    signal: client.signal,
    id,
    logger,
    stats,
    telemetry,
    url,
    agent,
    marker,
  };
}

/**
 * The loop's signal, aborted by the deadline or by a client that went away (with `onClientDisconnect: 'abort'`), and
 * whether the client went away.
 */
function watchedClient(res: Response, config: Config, deadline: AbortSignal) {
  const { controller: cancel, unlink } = linkedController(deadline);
  // each of a turn's tool calls (up to maxToolCallsPerTurn, 64) listens to it: no leak warning past 10
  setMaxListeners(0, cancel.signal);
  const client = {
    signal: cancel.signal,
    gone: false,
    unwatch() {
      unlink();
      res.removeListener('close', onClose);
    },
  };
  const onClose = () => {
    if (res.writableEnded) return;
    client.gone = true;
    if (config.onClientDisconnect === 'abort') cancel.abort(new Error('client disconnected'));
  };
  res.once('close', onClose);
  return client;
}

/** The wire's conversation and reply, opened on the binding's tools. */
function openedSession(setup: Setup, binding: ActiveBinding, body: WireRequest, split: Listing) {
  const { services, req, res, wire, settings, signal, stats } = setup;
  const { config } = services;
  const succeeded = new Set(setup.earlier.succeeded);
  const loaded: string[] = [];
  const session = wire.open(
    body,
    {
      loopId: setup.id,
      tools: binding.codeMode
        ? [runCodeTool(split.offered, binding.codeMode, split.held.length > 0)]
        : [...split.offered],
      servesClientSearch: binding.toolSearch !== false && !binding.toolSearch.native,
      countsTokens: settings.maxTokensPerLoop !== undefined || settings.keyBudget !== undefined,
      maxContextBytes: config.maxContextBytes,
      stats,
      logger: setup.logger,
      handBacks: { continuations: services.continuations, req, binding: binding.name, succeeded, loaded },
      answerIds: services.answerIds,
      approvalTool: services.approvals.tool,
      inputTool: services.approvals.input?.tool ?? '',
    },
    req,
  );
  const reply = session.reply(res, { keepAliveSec: config.keepAliveSec, signal, judged: services.judge !== undefined });
  return { session, reply, succeeded, loaded };
}

/** The loop that runs the session's turns. */
function loopOf(setup: Setup, binding: ActiveBinding, split: Listing, opened: ReturnType<typeof openedSession>): Loop {
  const { services, req, res, wire, settings, signal, stats } = setup;
  const { config, judge } = services;
  const { session, reply, succeeded, loaded } = opened;
  const { conversation } = session;
  const clientTools = new Set(session.clientTools);
  // The client's history is text it wrote: what ran well there is read from the text, and only when trusted.
  if (config.trustClientHistory) for (const tool of wire.succeededIn(conversation.history)) succeeded.add(tool);
  const { held } = split;
  const toolSearch = DeferredTools.open(
    {
      held,
      client: session.clientSearch,
      config: binding.toolSearch,
      earlier: setup.earlier.loaded,
      loaded,
      ...(binding.codeMode ? { declare: declaration } : {}),
    },
    conversation,
    clientTools,
  );
  const turns = turnsOf(setup, session.reader);
  const asker = services.approvals.input;
  const loop: Loop = {
    id: setup.id,
    req,
    res,
    config,
    settings,
    binding,
    maxTurns: binding.maxTurns ?? settings.defaultMaxTurns,
    deadline: setup.deadline,
    wire: wire.name,
    conversation,
    clientTools,
    toolSearch,
    succeeded,
    signal,
    logger: setup.logger,
    logFields: { loopId: setup.id, binding: binding.name, wire: wire.name },
    verbose: logs(setup.logger, 'info'),
    stats,
    reply,
    onToolProgress: reply.streams ? () => reply.toolProgress?.() : undefined,
    onToolNote: reply.streams ? (tool, note) => reply.toolNote?.(tool, note) : undefined,
    repeats: new RepeatedCalls(config.maxRepeatedCalls),
    keyBudget: keyMeter(services.keyBudget, settings.keyBudget, req, setup.keySpend),
    judge,
    approvalTool: session.approvalTool,
    telemetry: setup.telemetry,
    complete: turns.complete,
    judgeCompletion: turns.judgeCompletion,
    askApproval: (pending) => approvalCalls(loop, services.approvals.tokens, pending),
    input: asker && session.inputTool ? { tool: session.inputTool, maxRounds: asker.maxRounds } : undefined,
    askInput: (pending) => (asker ? inputCalls(loop, asker.tokens, pending) : []),
  };
  return loop;
}

/** The loop's turns and the judge's, each a self-call through the app's front door. */
function turnsOf(setup: Setup, reader: TurnReader): Pick<Loop, 'complete' | 'judgeCompletion'> {
  const { services, req, wire, url, agent, marker } = setup;
  return {
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
  };
}

/**
 * A follow-up's approval answers applied before any turn; the answer when a tool asks the person again (its call still
 * waits), else undefined.
 */
async function settledApprovals(
  loop: Loop,
  reader: ApprovalReader,
  approvals: WireApprovals,
  decisions: PersonDecision[],
): Promise<LoopResult | undefined> {
  const asksAgain = await answerApprovals(loop, await recordedAnswers(reader, decisions));
  // a follow-up that falls through hands the normal handler the conversation with every call answered
  loop.req.body = approvals.withItems(loop.req.body as WireRequest, loop.conversation.items);
  if (asksAgain.length === 0) return undefined;
  const [stop, fields] = askPerson(loop, undefined, asksAgain);
  return { kind: 'answer', answer: { stop, text: '', ...fields } };
}
