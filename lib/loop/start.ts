import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { succeededInHistory } from '../hierarchy';
import { logs } from '../logger';
import type { Settings } from '../options';
import type { ChatMessage, ChatTool, Logger } from '../types';
import { Deadline } from './budget';
import type { JudgeRunner } from '../judge/runner';
import type { ActiveBinding, Loop, LoopStats } from './context';
import { runLoop, type LoopResult } from './run';
import type { SelfCaller } from './self-call';

export interface LoopDeps {
  caller: SelfCaller;
  logger: Logger;
  settings: () => Settings;
  maxToolResultBytes: number;
  judge?: JudgeRunner;
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

/** Sets up one loop for one client request (deadline, disconnect watch, tools) and runs it to its result. */
export async function startLoop(deps: LoopDeps, req: Request, res: Response, body: ChatRequest, binding: ActiveBinding): Promise<LoopResult & { stats: LoopStats }> {
  const settings = deps.settings();
  const deadline = new Deadline(settings.totalBudgetSec);
  const disconnect = new AbortController();
  const onClose = () => res.writableEnded || disconnect.abort(new Error('client disconnected'));
  res.once('close', onClose);
  const signal = AbortSignal.any([deadline.signal, disconnect.signal]);
  const id = randomBytes(8).toString('hex');
  const stats: LoopStats = { turns: 0, toolCalls: 0, blocked: 0 };
  const loop: Loop = {
    id,
    req,
    binding,
    messages: [...body.messages],
    succeeded: succeededInHistory(body.messages),
    signal,
    logger: deps.logger,
    verbose: logs(deps.logger, 'info'),
    stats,
    maxToolCallsPerTurn: settings.maxToolCallsPerTurn,
    maxToolResultBytes: deps.maxToolResultBytes,
    judge: deps.judge,
    complete: (turnBody, turnSignal) =>
      deps.caller.complete(req, turnBody, { loopId: id, turn: stats.turns, expiresAt: deadline.expiresAt + MARKER_GRACE_MS, signal: turnSignal }),
  };
  try {
    const own = await binding.catalog.tools(signal);
    const offered = new Set(own.map((tool) => tool.function.name));
    const theirs = clientToolNames(body.tools).filter((tool) => !offered.has(tool.function.name));
    const { tools: _replaced, stream_options: _streamOnly, ...rest } = body;
    const result = await runLoop(loop, {
      body: { ...rest, stream: false },
      tools: [...own, ...theirs],
      clientTools: new Set(theirs.map((tool) => tool.function.name)),
      maxTurns: binding.maxTurns ?? settings.defaultMaxTurns,
      deadline,
    });
    return { ...result, stats };
  } finally {
    deadline.clear();
    res.removeListener('close', onClose);
  }
}
