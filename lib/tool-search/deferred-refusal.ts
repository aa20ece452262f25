import type { Response } from 'express';
import type { Wire, WireRequest } from '../loop/wire';
import { apiErrorBody } from '../openai-error';
import { deferredToolsRefusal } from './deferred-limits';
import type { ToolSearchConfig } from './options';

/** A 400 in the wire's error shape: the two wires whose clients bring their own tool search, Messages and Responses. */
const badRequest = (wire: Pick<Wire, 'name'>, message: string): unknown =>
  wire.name === 'messages'
    ? { type: 'error', error: { type: 'invalid_request_error', message } }
    : { error: { ...apiErrorBody(400, message, 'too_many_deferred_tools').error, param: 'tools' } };

/**
 * A request deferring more tools than the loop's tool search indexes for one request is answered 400 in its wire's
 * error shape, with `x-agent-loop-stop: deferred-tools`, before anything runs (true when it was).
 */
export function refusedForDeferredTools(
  res: Response,
  wire: Pick<Wire, 'name'>,
  body: WireRequest,
  toolSearch: ToolSearchConfig | false,
): boolean {
  const refusal = deferredToolsRefusal(body.tools, toolSearch);
  if (refusal === undefined) return false;
  res.setHeader('x-agent-loop-stop', 'deferred-tools');
  res.status(400).json(badRequest(wire, refusal));
  return true;
}
