import type { CallToolResult, InputAnswers, InputRequest } from '../types';
import { isObject } from '../shared/fields';

/** A root the server is told of (`trellis.mcp.roots`). */
export interface Root {
  uri: string;
  name?: string;
}

/** What the client declares it can answer, on every 2026-07-28 request: a person's form or page, its roots. */
export const INPUT_CAPABILITIES = { elicitation: { form: {}, url: {} }, roots: {} };

/**
 * What a 2025 server that asks the person during a call is told when the question cannot be told to one call: several
 * are in flight on the session, and each may be another person's.
 */
export const ELICITATION_2025 =
  'this client puts a question asked during a call to the user ' +
  'only while that call is the only one in flight on the session; ' +
  'ask through input_required results (MCP 2026-07-28)';

/** How often a server that only asks for roots is answered at once, before the call is taken for a loop. */
const MAX_OWN_ROUNDS = 3;

/** The SDK's `input_required` answer; undefined for a complete result. */
function inputRequiredIn(
  raw: unknown,
): { inputRequests: Record<string, InputRequest>; requestState?: string; taskId?: string } | undefined {
  if (!isObject(raw) || raw.resultType !== 'input_required') return undefined;
  const requests = isObject(raw.inputRequests) ? raw.inputRequests : {};
  const inputRequests = Object.fromEntries(
    Object.entries(requests).filter(([, request]) => isObject(request) && typeof request.method === 'string'),
  ) as Record<string, InputRequest>;
  return {
    inputRequests,
    ...(typeof raw.requestState === 'string' ? { requestState: raw.requestState } : {}),
    ...(typeof raw.taskId === 'string' ? { taskId: raw.taskId } : {}),
  };
}

/**
 * A `tools/call` that may answer `input_required` (2026-07-28): `roots/list` is answered here, from the server's
 * `roots`, and the call made again at once when nothing else was asked; any other question is the loop's to put to
 * the person (`inputRequired` on the result, with the roots already answered).
 */
export async function callWithInput(
  call: (input: InputAnswers | undefined) => Promise<unknown>,
  input: InputAnswers | undefined,
  roots: readonly Root[],
): Promise<CallToolResult> {
  let answers = input;
  for (let round = 0; ; round++) {
    const raw = await call(answers);
    const asked = inputRequiredIn(raw);
    if (asked === undefined) return raw as CallToolResult;
    const answered: Record<string, unknown> = {};
    const open: Record<string, InputRequest> = {};
    for (const [key, request] of Object.entries(asked.inputRequests)) {
      if (request.method === 'roots/list') answered[key] = { roots: roots.map((root) => ({ ...root })) };
      else open[key] = request;
    }
    const state = {
      ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
      ...(asked.taskId === undefined ? {} : { taskId: asked.taskId }),
    };
    if (Object.keys(open).length > 0)
      return { content: [], inputRequired: { inputRequests: open, ...state, answered } };
    if (round + 1 >= MAX_OWN_ROUNDS)
      return {
        content: [{ type: 'text', text: `the server asked for its roots ${MAX_OWN_ROUNDS} times` }],
        isError: true,
      };
    answers = { inputResponses: answered, ...state };
  }
}
