import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Request, Response } from 'express';
import { succeededInHistory } from '../hierarchy';
import { logs, withFields } from '../logger';
import { linkedController } from '../signals';
import type { Settings } from '../options';
import type { ChatMessage, ChatTool, Logger, ToolCall } from '../types';
import type { JudgeRunner } from '../judge/runner';
import type { Telemetry } from '../telemetry/loop-telemetry';
import { answerApprovals, settleApprovals } from './approval-answers';
import type { ApprovalReader } from './approval-decision';
import { approvalCalls } from './approval-handback';
import { Deadline } from './budget';
import type { ActiveBinding, Loop, LoopStats } from './context';
import { ContextBudget } from './context-budget';
import type { Continuations } from './continuation';
import { JsonReply } from './json-reply';
import { RepeatedCalls } from './repeats';
import type { AnswerIdentity, Reply } from './reply';
import { runLoop, type LoopResult } from './run';
import type { SelfCaller } from './self-call';
import { StreamReply } from './stream-writer';
import { TurnBody, type TurnSource } from './turn-body';

export interface LoopDeps {
  caller: SelfCaller;
  /** seals the record of a loop's work that a hand-back carries */
  continuations: Continuations;
  /** whether tools the client's history says ran unlock their children, or only this loop's and verified continuations' */
  trustClientHistory: boolean;
  logger: Logger;
  settings: () => Settings;
  maxToolResultBytes: number;
  passImages: boolean;
  maxRepeatedCalls: number;
  /** undefined: no limit */
  maxContextBytes?: number;
  judge?: JudgeRunner;
  /** reads the client's approval answers and seals the calls handed to it for approval */
  approvals: ApprovalReader;
  keepAliveSec: number;
  onClientDisconnect: 'abort' | 'finish';
  telemetry?: Telemetry;
  /** aborted when a shutdown's drain runs out */
  shutdown: AbortSignal;
}

export interface ChatRequest {
  model?: unknown;
  messages: ChatMessage[];
  tools?: unknown;
  stream?: unknown;
  [key: string]: unknown;
}

// A marker must outlive the deadline a little: a self-call sent just before it must not be taken for an outsider's.
const MARKER_GRACE_MS = 5_000;

function clientToolNames(tools: unknown): ChatTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter((tool): tool is ChatTool => typeof tool?.function?.name === 'string');
}

/** The client's approval tool is the loop's channel to the person, never offered to the model. */
function declaresApproval(tools: ChatTool[], approvalTool: string): boolean {
  return tools.some((tool) => tool.function.name === approvalTool);
}

function replyFor(deps: LoopDeps, res: Response, body: ChatRequest, identity: AnswerIdentity, signal: AbortSignal): Reply {
  if (body.stream !== true) return new JsonReply(res, identity, deps.judge !== undefined);
  const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  return new StreamReply(res, identity, { keepAliveSec: deps.keepAliveSec, includeUsage, signal });
}

/**
 * What every turn asks the model: the client's request with the loop's tools (no `tools` key at all when there are
 * none: some upstreams reject an empty list); a streaming client's turns stream too, and report their usage when
 * a token budget counts it.
 */
function turnFields(body: ChatRequest, tools: ChatTool[], streams: boolean, countsTokens: boolean): Record<string, unknown> {
  const { tools: _replaced, stream_options: streamOptions, ...rest } = body;
  const withTools = tools.length > 0 ? { ...rest, tools } : rest;
  if (!streams) return { ...withTools, stream: false };
  const options = countsTokens ? { ...(streamOptions as object | undefined), include_usage: true } : streamOptions;
  return { ...withTools, stream: true, ...(options === undefined ? {} : { stream_options: options }) };
}

/** The turn body, behind the context budget when there is one (the client's messages are never elided). */
function turnSource(deps: LoopDeps, loop: Loop, body: TurnBody): TurnSource {
  if (deps.maxContextBytes === undefined) return body;
  return new ContextBudget(body, deps.maxContextBytes, loop.messages.length, loop.stats, { logger: loop.logger, loopId: loop.id });
}

/** How a loop ended, for metrics and its span: the answer's stop reason, `fallthrough` or `client_gone`. */
function stopOf(result: LoopResult, clientGone: boolean): string {
  if (clientGone || result.kind === 'abandoned') return 'client_gone';
  return result.kind === 'answer' ? result.answer.stop : 'fallthrough';
}

/** Sends the answer to a client that is still there; for one that went away, only logs how its loop ended. */
function deliver(result: LoopResult, reply: Reply, clientGone: boolean, logger: Logger, outcome: { loopId: string; binding: string } & LoopStats): LoopResult {
  if (clientGone || result.kind === 'abandoned') {
    const stop = result.kind === 'answer' ? result.answer.stop : result.kind;
    logger.info(`agent-loop ${result.kind === 'answer' ? 'finished' : 'abandoned'}: the client went away`, { ...outcome, stop });
    return { kind: 'abandoned' };
  }
  if (result.kind === 'answer') {
    reply.send(result.answer, outcome);
    logger.info('agent-loop answered', { ...outcome, stop: result.answer.stop, stream: reply.streams });
  } else {
    logger.info('agent-loop fell through to the normal handler', { loopId: outcome.loopId, binding: outcome.binding, reason: result.reason });
  }
  return result;
}

/**
 * Sets up one loop for one client request (deadline, disconnect watch, tools, reply), runs it, and sends its
 * answer. `verified`: the work the request's continuation tokens restored, which alone (with this loop's own
 * turns) unlocks the hierarchy gate, unless the client's history is trusted. Only a fall-through is left to the caller. A client that went away never falls through: with
 * `onClientDisconnect: 'abort'` its loop is cancelled, with 'finish' it runs to its end and its outcome is logged.
 */
export async function startLoop(deps: LoopDeps, req: Request, res: Response, request: ChatRequest, binding: ActiveBinding, verified: ChatMessage[] = []): Promise<LoopResult> {
  const settled = settleApprovals(deps.approvals, req, binding.name, request.messages);
  const body = settled ? { ...request, messages: settled.messages } : request;
  const clientTools = clientToolNames(body.tools);
  const url = deps.caller.urlFor(req);
  const agent = deps.caller.agentFor(req);
  const settings = deps.settings();
  const deadline = new Deadline(settings.totalBudgetSec, deps.shutdown);
  // The loop's signal: aborted by the deadline, or by a client that went away.
  const { controller: cancel, unlink } = linkedController(deadline.signal);
  // each of a turn's tool calls (up to maxToolCallsPerTurn, 64) listens to it: no leak warning past 10
  setMaxListeners(0, cancel.signal);
  let clientGone = false;
  const onClose = () => {
    if (res.writableEnded) return;
    clientGone = true;
    if (deps.onClientDisconnect === 'abort') cancel.abort(new Error('client disconnected'));
  };
  res.once('close', onClose);
  const { signal } = cancel;
  // randomUUID draws on a cached entropy pool; randomBytes asked OpenSSL on every loop.
  const id = randomUUID().replace(/-/g, '').slice(0, 16);
  // Before the first byte, so streamed answers and fall-throughs carry it too.
  res.setHeader('x-agent-loop-id', id);
  const requestId = req.headers['x-request-id'];
  const logger = typeof requestId === 'string' ? withFields(deps.logger, { requestId }) : deps.logger;
  const model = typeof body.model === 'string' ? body.model : '';
  const telemetry = deps.telemetry?.loop(req, binding.name, model, id);
  const stats: LoopStats = { turns: 0, toolCalls: 0, blocked: 0, repeated: 0, elided: 0 };
  const marker = deps.caller.marker(id, deadline.expiresAt + MARKER_GRACE_MS);
  const reply = replyFor(deps, res, body, { id: `chatcmpl-${id}`, created: Math.floor(Date.now() / 1000), model }, signal);
  const loop: Loop = {
    id,
    req,
    binding,
    messages: [...body.messages],
    succeeded: succeededInHistory(deps.trustClientHistory ? body.messages : verified),
    signal,
    logger,
    verbose: logs(logger, 'info'),
    stats,
    maxToolCallsPerTurn: settings.maxToolCallsPerTurn,
    maxToolResultBytes: deps.maxToolResultBytes,
    passImages: deps.passImages,
    onToolProgress: reply.streams ? () => reply.toolProgress?.() : undefined,
    repeats: new RepeatedCalls(deps.maxRepeatedCalls),
    judge: deps.judge,
    approvalTool: declaresApproval(clientTools, deps.approvals.tool) ? deps.approvals.tool : undefined,
    telemetry,
    complete(turn, turnSignal, onText, watch) {
      const call = () => deps.caller.complete(req, turn, { url, agent, marker, signal: turnSignal, trace: watch?.headers }, onText);
      return watch ? watch.within(call) : call();
    },
  };
  let result: LoopResult = { kind: 'fallthrough', reason: 'error' };
  try {
    const own = await binding.catalog.tools(signal);
    const offered = new Set(own.map((tool) => tool.function.name));
    const theirs = clientTools.filter((tool) => !offered.has(tool.function.name) && tool.function.name !== deps.approvals.tool);
    if (settled) {
      await answerApprovals(loop, settled.decisions);
      // a follow-up that falls through hands the normal handler the conversation with every call answered
      req.body = { ...(req.body as object), messages: [...loop.messages] };
    }
    const handBack = (calls: ToolCall[]) => deps.continuations.carry(req, binding.name, calls, loop.messages.slice(body.messages.length));
    result = await runLoop(loop, {
      body: turnSource(deps, loop, new TurnBody(turnFields(body, [...own, ...theirs], reply.streams, settings.maxTokensPerLoop !== undefined))),
      clientTools: new Set(theirs.map((tool) => tool.function.name)),
      maxTurns: binding.maxTurns ?? settings.defaultMaxTurns,
      maxTokens: settings.maxTokensPerLoop,
      deadline,
      reply,
      handBack,
      askApproval: (pending) => handBack(approvalCalls(loop, deps.approvals.tokens, pending)),
    });
    return deliver(result, reply, clientGone, logger, { loopId: id, binding: binding.name, ...stats });
  } finally {
    telemetry?.ended(stopOf(result, clientGone), stats, result.kind === 'answer' ? result.answer.usage : undefined);
    deadline.clear();
    unlink();
    res.removeListener('close', onClose);
    reply.dispose();
  }
}
