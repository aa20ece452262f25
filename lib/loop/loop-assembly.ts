import { logs } from '../shared/logger';
import { DeferredTools, type splitListing } from '../tool-search/deferred-tools';
import type { TurnReader, WireRequest } from './wire';
import { approvalCalls, inputCalls } from '../person/hand-back';
import type { ActiveBinding, Loop } from './context';
import { RepeatedCalls } from './repeats';
import { keyMeter } from '../store/key-budget';
import { declaration, runCodeTool } from '../code-mode/declarations';
import { judgeUrlOf } from './judge-url';
import type { Setup } from './setup';

export type Listing = ReturnType<typeof splitListing>;

/** The wire's conversation and reply, opened on the binding's tools. */
export function openedSession(setup: Setup, binding: ActiveBinding, body: WireRequest, split: Listing) {
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

type OpenedSession = ReturnType<typeof openedSession>;

/** The loop that runs the session's turns. */
export function loopOf(setup: Setup, binding: ActiveBinding, split: Listing, opened: OpenedSession): Loop {
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
      return reply;
    },
  };
}
