import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Request, Response } from 'express';
import { withFields } from '../shared/logger';
import { linkedController } from '../shared/signals';
import { splitListing } from '../tool-search/deferred-tools';
import type { Config } from '../options/agent-loop';
import type { Wire, WireRequest } from './wire';
import { Deadline } from './deadline';
import type { ActiveBinding, LoopStats } from './context';
import type { Reply } from './reply';
import { runLoop, type LoopResult } from './run';
import type { KeySpend } from '../store/key-budget';
import { consentHeaders, signedIn } from '../person/sign-in';
import { SIGN_IN } from '../person/question';
import { deliver, stopOf } from './delivery';
import { loopOf, openedSession } from './loop-assembly';
import { settledApprovals } from './settled-approvals';
import type { LoopServices, Setup, WatchedClient } from './setup';
import { NOTHING_EARLIER, type EarlierWork } from '../hand-back/continuation';

// A marker must outlive the deadline a little: a self-call sent just before it must not be taken for an outsider's.
const MARKER_GRACE_MS = 5_000;

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
function watchedClient(res: Response, config: Config, deadline: AbortSignal): WatchedClient {
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
