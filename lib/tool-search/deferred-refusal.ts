import type { Response } from 'express';
import { setStop } from '../shared/stop';
import { deferredToolsRefusal } from './deferred-limits';
import type { ToolSearchConfig } from './options';

/**
 * A request deferring more tools than the loop's tool search indexes for one request is answered 400 in its wire's
 * error shape, with `x-agent-loop-stop: deferred-tools`, before anything runs (true when it was).
 */
export function refusedForDeferredTools(
  res: Response,
  wire: { error(status: number, message: string, fields: { param: string; code: string }): unknown },
  body: { readonly [key: string]: unknown },
  toolSearch: ToolSearchConfig | false,
): boolean {
  const refusal = deferredToolsRefusal(body.tools, toolSearch);
  if (refusal === undefined) return false;
  setStop(res, 'deferred-tools');
  res.status(400).json(wire.error(400, refusal, { param: 'tools', code: 'too_many_deferred_tools' }));
  return true;
}
