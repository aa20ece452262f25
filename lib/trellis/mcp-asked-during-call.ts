import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { InputAnswers } from '../types';

/** What marks a `requestState` as one of these calls' own, never a server's. */
const MARKER = 'agent-loop/asked-during-call:';
/** The question's key in the `input_required` result made of it. */
const KEY = 'elicitation';
/** How long a question waits for the person when the loop does not say (`input.ttlSec`'s default). */
const TTL_SEC = 600;

type ElicitResult = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/** A 2025 call in flight, its server's question handed to the person as an `input_required` result. */
interface Call {
  client: Client;
  tool: string;
  /** the one `tools/call`, awaited across the loop's requests */
  original: Promise<unknown>;
  controller: AbortController;
  ttlMs: number;
}

interface Parked extends Call {
  answer(result: ElicitResult): void;
  timer: NodeJS.Timeout;
}

/** A call some request awaits: a question its server asks now is this call's. */
interface Round {
  ask(params: Record<string, unknown>): Promise<ElicitResult>;
}

export interface AskedDuringCall {
  /** a 2025 server's `elicitation/create` on `client`: put to the person when one call alone can have asked it */
  elicit(client: Client, params: Record<string, unknown>): Promise<ElicitResult>;
  /**
   * `tools/call` by `start`, or the answers to its question taken back to the call that waits for them: the raw
   * result, or an `input_required` one when the server asks during the call
   */
  call(
    client: Client,
    tool: string,
    start: (signal: AbortSignal) => Promise<unknown>,
    options: { signal: AbortSignal; input?: InputAnswers; ttlSec?: number },
  ): Promise<unknown>;
}

/**
 * The readable error of a 2025 call the answer cannot reach, as a failed result (the model reads `tool error: ...`).
 */
const gone = (tool: string) => ({
  content: [
    {
      type: 'text',
      text:
        `'${tool}' asked during its call, ` +
        'and that call is no longer waiting for the answer (it expired or ran on another replica)',
    },
  ],
  isError: true,
});

/** The call held until the person answers (or the question expires); the loop gets the question. */
function park(
  waiting: Map<string, Parked>,
  call: Call,
  params: Record<string, unknown>,
  answer: (result: ElicitResult) => void,
): unknown {
  const id = randomUUID();
  // expired: the server hears a cancel, and the call is left to finish or fail within its own timeout
  const timer = setTimeout(() => waiting.delete(id) && answer({ action: 'cancel' }), call.ttlMs);
  timer.unref();
  waiting.set(id, { ...call, answer, timer });
  return {
    resultType: 'input_required',
    inputRequests: { [KEY]: { method: 'elicitation/create', params } },
    requestState: `${MARKER}${id}`,
  };
}

/**
 * Servers of 2025 ask the person during the call (`elicitation/create`): the call is held here, in memory, and the
 * question handed to the loop as an `input_required` result whose state names it; the answer, when it comes back
 * to this process in time, goes to the waiting call, whose result the loop then reads. A question is told to its
 * call only when one call on the session is awaited: with several, it could be another person's.
 */
export function askedDuringCall(unclear: string): AskedDuringCall {
  const rounds = new WeakMap<Client, Set<Round>>();
  const waiting = new Map<string, Parked>();

  function roundsOf(client: Client): Set<Round> {
    let set = rounds.get(client);
    if (!set) rounds.set(client, (set = new Set()));
    return set;
  }

  /** The call's result, or the question it asks first; the caller's signal aborts the call only while it waits. */
  function awaitRound(call: Call, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const inFlight = roundsOf(call.client);
      const abort = () => call.controller.abort(signal.reason);
      const end = () => {
        inFlight.delete(round);
        signal.removeEventListener('abort', abort);
      };
      const round: Round = {
        ask(params) {
          end();
          return new Promise<ElicitResult>((answer) => resolve(park(waiting, call, params, answer)));
        },
      };
      inFlight.add(round);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
      call.original.then(
        (raw) => (end(), resolve(raw)),
        (error: unknown) => (end(), reject(error)),
      );
    });
  }

  async function elicit(client: Client, params: Record<string, unknown>): Promise<ElicitResult> {
    const inFlight = [...(rounds.get(client) ?? [])];
    if (inFlight.length !== 1) throw new Error(unclear);
    return inFlight[0].ask(params);
  }

  async function call(
    client: Client,
    tool: string,
    start: (signal: AbortSignal) => Promise<unknown>,
    { signal, input, ttlSec = TTL_SEC }: { signal: AbortSignal; input?: InputAnswers; ttlSec?: number },
  ): Promise<unknown> {
    const state = input?.requestState;
    if (state?.startsWith(MARKER)) {
      const id = state.slice(MARKER.length);
      const parked = waiting.get(id);
      if (!parked || parked.tool !== tool) return gone(tool);
      waiting.delete(id);
      clearTimeout(parked.timer);
      parked.answer((input!.inputResponses[KEY] as ElicitResult | undefined) ?? { action: 'cancel' });
      return awaitRound(parked, signal);
    }
    const controller = new AbortController();
    const original = start(controller.signal);
    // nobody may await it once its question expired
    original.catch(() => undefined);
    return awaitRound({ client, tool, original, controller, ttlMs: ttlSec * 1000 }, signal);
  }

  return { elicit, call };
}
