import type { Response } from 'express';
import { refusedForDeferredTools } from '../../lib/tool-search/deferred-refusal';
import { MAX_DEFERRED_TOOLS } from '../../lib/tool-search/deferred-limits';
import { toolSearchOf } from '../../lib/tool-search/options';
import { messagesWire } from '../../lib/wire/messages/messages';
import { responsesWire } from '../../lib/wire/responses/responses';

/** what a refusal sets on the response */
function response() {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const res = {
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => (sent.body = body),
  };
  return { res: res as unknown as Response, sent };
}

const on = toolSearchOf(undefined, undefined);
const tools = [
  { type: 'tool_search' },
  ...Array.from({ length: MAX_DEFERRED_TOOLS + 1 }, (_, i) => ({
    type: 'function',
    name: `t${i}`,
    defer_loading: true,
  })),
];

describe('refusedForDeferredTools', () => {
  it.each([
    [
      'messages',
      messagesWire,
      {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: expect.stringMatching(/^agent-loop: too many deferred tools/),
        },
      },
    ],
    [
      'responses',
      responsesWire,
      {
        error: {
          message: expect.stringMatching(/^agent-loop: too many deferred tools/),
          type: 'invalid_request_error',
          param: 'tools',
          code: 'too_many_deferred_tools',
        },
      },
    ],
  ])('answers %s 400 in its error shape, with x-agent-loop-stop: deferred-tools', (_name, wire, body) => {
    const { res, sent } = response();
    expect(refusedForDeferredTools(res, wire, { tools }, on)).toBe(true);
    expect(sent).toEqual({ status: 400, headers: { 'x-agent-loop-stop': 'deferred-tools' }, body });
  });

  it('leaves a request within the bounds alone', () => {
    const { res, sent } = response();
    expect(refusedForDeferredTools(res, messagesWire, { tools: tools.slice(0, 10) }, on)).toBe(false);
    expect(sent).toEqual({ headers: {} });
  });
});
