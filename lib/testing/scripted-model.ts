import http from 'node:http';
import { chatWire } from './chat';
import { readBody, sendJson as send } from './http';
import { onLoopback, type OnLoopback } from './loopback';
import { geminiWire } from './gemini';
import { messagesWire } from './messages';
import { responsesWire } from './responses';
import { checkedScript, turnFor, type ScriptedRequest, type ScriptEntry } from './script';
import type { Body, ScriptedWire, SseFrame } from './wire';
import { isObject } from '../shared/fields';
import { frontDoorAt } from '../loop/front-door';
import { wireFor } from '../wire/wires';

export interface ScriptedModel {
  /** resolves once the model listens (`url` is set then) */
  ready: Promise<void>;
  /**
   * `http://127.0.0.1:<port>/v1`: the base URL of every wire (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`);
   * Gemini's `/v1beta/models/{model}:generateContent` sits at its origin (Google's client adds `/v1beta` itself)
   */
  readonly url: string;
  /** every request it was sent, in order: path, headers, parsed body, wire and turn index */
  requests: ScriptedRequest[];
  /** stops it, dropping open connections */
  close(): Promise<void>;
}

/** The scripted wire whose route (the wire's, `WIRES`) `path` ends with, under `/v1` (or `/v1beta`, Google's). */
function wireOf(path: string, wires: readonly ScriptedWire[]): ScriptedWire | undefined {
  const served = wireFor(path);
  if (!served || !/^\/v1(beta)?$/.test(path.slice(0, frontDoorAt(served, path)))) return undefined;
  return wires.find((wire) => wire.name === served.name);
}

function stream(res: http.ServerResponse, frames: SseFrame[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const { event, data } of frames) res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`);
  res.end();
}

/**
 * A scripted model on a loopback port, an upstream for a gateway's tests: it speaks OpenAI chat completions,
 * OpenAI Responses, Anthropic Messages and Google Gemini, JSON or streamed as each request asks. A request is answered
 * with the
 * entry whose index is the number of model turns already in its conversation (past the end, the last entry), so
 * concurrent conversations each follow the script.
 */
export function scriptedModel(turns: ScriptEntry[]): ScriptedModel {
  const script = checkedScript(turns);
  const wires: ScriptedWire[] = [chatWire, responsesWire(), messagesWire, geminiWire];
  const requests: ScriptedRequest[] = [];
  const server = http.createServer(async function scriptedModelServer(req, res) {
    const path = req.url?.split('?')[0] ?? '';
    const wire = wireOf(path, wires);
    if (req.method !== 'POST' || !wire) {
      const said =
        'scriptedModel answers POST /v1/chat/completions, /v1/responses, ' +
        `/v1/messages and /v1beta/models/{model}:generateContent, not ${req.method} ${req.url}`;
      return send(res, 404, (wire ?? chatWire).error(404, said));
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(res, 400, wire.error(400, 'The request body is not valid JSON.'));
    }
    const unreadable = isObject(body) ? wire.unreadable(body) : 'The request body must be a JSON object.';
    if (unreadable !== undefined) return send(res, 400, wire.error(400, unreadable));
    const read = body as Body;
    const request: ScriptedRequest = {
      path: req.url!,
      headers: req.headers,
      body: read,
      wire: wire.name,
      turn: wire.turnOf(read),
      history: wire.history(read),
    };
    requests.push(request);
    try {
      const whole = wire.json(await turnFor(script, request), read, request.turn, req.url);
      if (read.stream === true || wire.streams?.(path)) stream(res, wire.events(whole, read));
      else send(res, 200, whole);
    } catch (error) {
      send(res, 500, wire.error(500, `scriptedModel: ${(error as Error).message}`));
    }
  });
  server.keepAliveTimeout = 30_000;
  let listening: OnLoopback | undefined;
  const ready = onLoopback(server).then((bound) => {
    listening = bound;
  });
  return {
    ready,
    get url() {
      if (!listening) throw new Error('scriptedModel: the url is known once it listens: `await model.ready` first');
      return `${listening.origin}/v1`;
    },
    requests,
    async close() {
      await ready;
      await listening!.close();
    },
  };
}
