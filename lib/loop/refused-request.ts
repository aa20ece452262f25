import type { Request, Response } from 'express';
import { conflictMessage, presentedCredential } from '../shared/client-identity';
import { refuseKey } from '../shared/credential';
import { isObject } from '../shared/fields';
import type { ErrorFields, Wire, WireRequest } from './wire';

/** What JSON calls a value, the way the API's messages name it ("expected an array, but got a string instead"). */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why the API itself would refuse the request's `tools`: a list of tool objects, or left out (or null). */
function toolsRefusal(tools: unknown): { message: string; fields: ErrorFields } | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools))
    return {
      message: `Invalid type for 'tools': expected an array, but got ${jsonKind(tools)} instead.`,
      fields: { param: 'tools', code: 'invalid_type' },
    };
  const at = tools.findIndex((tool) => !isObject(tool));
  if (at < 0) return undefined;
  return {
    message: `Invalid type for 'tools[${at}]': expected an object, but got ${jsonKind(tools[at])} instead.`,
    fields: { param: `tools[${at}]`, code: 'invalid_type' },
  };
}

/**
 * A request the loop answers itself, in its wire's error shape, before anything runs (true when it did): a 401 for
 * different credentials in one request (budgets, sign-ins and hand-backs are the one key's), a 400 for `tools` that
 * the API would refuse (the loop would otherwise drop them and answer 200), and what the wire itself refuses (a form
 * of the request it does not serve).
 */
export function refusedRequest(req: Request, res: Response, wire: Wire, body: WireRequest): boolean {
  const presented = presentedCredential(req);
  if ('conflicting' in presented) {
    refuseKey(res, 'Bearer', wire.error(401, conflictMessage(presented.conflicting), { code: 'invalid_api_key' }));
    return true;
  }
  const refusal = toolsRefusal(body.tools);
  const refused = refusal ? wire.error(400, refusal.message, refusal.fields) : wire.refusal?.(req);
  if (refused !== undefined) res.status(400).json(refused);
  return refused !== undefined;
}
