import {
  outcomeImages,
  readsAsFailure,
  toolErrorText,
  toolOutcomeText,
  type ToolOutcome,
} from '../../lib/loop/tool-outcome';

describe('toolOutcomeText', () => {
  it.each<[string, ToolOutcome, string]>([
    ['a result', { kind: 'ok', text: 'opened' }, 'opened'],
    ['a result that reads like a failure', { kind: 'ok', text: 'tool error: none found' }, 'tool error: none found'],
    [
      "the tool's own error, as resultText wrote it",
      { kind: 'tool_error', text: 'tool error: disk full' },
      'tool error: disk full',
    ],
    [
      'a gate refusal',
      { kind: 'refused', tool: 'repo_read', parent: 'repo_open' },
      "⛔ 'repo_read' is locked: call 'repo_open' first.",
    ],
    [
      'an unknown tool, with the valid ones',
      { kind: 'invalid', tool: 'x', why: 'unknown_tool', valid: ['a', 'b'] },
      "tool error: unknown tool 'x'; valid tools: a, b",
    ],
    [
      'an unknown tool, Trellis not listed yet',
      { kind: 'invalid', tool: 'x', why: 'unknown_tool', valid: [], unlisted: 'ECONNREFUSED' },
      "tool error: unknown tool 'x'; Trellis has not listed its tools yet (ECONNREFUSED)",
    ],
    [
      'an unknown tool, no tools at all',
      { kind: 'invalid', tool: 'x', why: 'unknown_tool', valid: [] },
      "tool error: unknown tool 'x'; this binding offers no tools",
    ],
    [
      'arguments that are no string',
      { kind: 'invalid', tool: 't', why: 'arguments_not_string' },
      "tool error: arguments for 't' must be a JSON object encoded as a string",
    ],
    [
      'arguments that are no JSON',
      { kind: 'invalid', tool: 't', why: 'arguments_not_json', error: 'Unexpected end' },
      "tool error: arguments for 't' are not valid JSON (Unexpected end)",
    ],
    [
      'arguments that are an array',
      { kind: 'invalid', tool: 't', why: 'arguments_not_object', got: [1] },
      "tool error: arguments for 't' must be a JSON object, got an array",
    ],
    [
      'arguments that are a number',
      { kind: 'invalid', tool: 't', why: 'arguments_not_object', got: 42 },
      "tool error: arguments for 't' must be a JSON object, got 42",
    ],
    [
      'a repeat',
      { kind: 'repeated', tool: 'clock_now', count: 3 },
      "tool error: 'clock_now' was already called with these arguments 3 times; use the earlier result or change the arguments",
    ],
    [
      'a judge block',
      { kind: 'blocked', reason: 'outside /srv/docs' },
      'tool error: blocked by policy: outside /srv/docs',
    ],
    ['a timeout', { kind: 'timeout', tool: 'stuck', seconds: 30 }, "tool error: 'stuck' timed out after 30s"],
    ['a transport error', { kind: 'transport', reason: 'Trellis unreachable' }, 'tool error: Trellis unreachable'],
    ['a call waiting for a person', { kind: 'pending', approval: { arguments: {}, reason: 'always' } }, ''],
    [
      'a client that cannot approve',
      { kind: 'unapproved', tool: 'rm', why: 'cannot_ask' },
      "tool error: 'rm' needs approval, which this client cannot give",
    ],
    [
      'arguments too long to approve',
      { kind: 'unapproved', tool: 'rm', why: 'arguments_too_long', maxBytes: 8192 },
      "tool error: 'rm' needs approval, but its arguments are too long to show a person (over 8192 bytes)",
    ],
    [
      'a denial',
      { kind: 'unapproved', tool: 'rm', why: 'denied', reason: 'no answer came' },
      "tool error: 'rm' was not approved: no answer came",
    ],
    [
      'an expired approval',
      { kind: 'unapproved', tool: 'rm', why: 'expired', ttlSec: 600 },
      "tool error: the approval of 'rm' came after it expired (approvals last 600s); the call did not run: call it again to ask anew",
    ],
    [
      'an approval answered twice',
      { kind: 'unapproved', tool: 'rm', why: 'already_answered' },
      "tool error: the approval of 'rm' was already answered; the call does not run again",
    ],
    [
      'an approval the store could not record',
      { kind: 'unapproved', tool: 'rm', why: 'unrecorded' },
      "tool error: the approval of 'rm' could not be recorded; ask again",
    ],
    [
      'an approval never asked for',
      { kind: 'unapproved', tool: 'rm', why: 'not_asked' },
      "tool error: the approval of 'rm' is not one this gateway asked for; the call did not run",
    ],
    [
      'a call approved and run in an earlier request',
      { kind: 'approved_earlier', tool: 'rm' },
      "[the result of 'rm' is not kept: it ran in an earlier request, after a person approved it]",
    ],
    [
      'a call over the per-turn cap',
      { kind: 'not_run', tool: 'extra' },
      "tool error: 'extra' was not run: the turn asked for more tool calls than the loop runs in one turn",
    ],
  ])('renders %s', (_what, outcome, text) => {
    expect(toolOutcomeText(outcome)).toBe(text);
  });

  it('prefixes every failure but the gate with tool error:', () => {
    expect(toolErrorText('disk full')).toBe('tool error: disk full');
  });
});

describe('outcomeImages', () => {
  it("gives the images of a tool's result, and none for an outcome that did not run", () => {
    const images = [{ mimeType: 'image/png', data: 'iVBOR' }];
    expect(outcomeImages({ kind: 'ok', text: 'see', images })).toEqual(images);
    expect(outcomeImages({ kind: 'tool_error', text: 'tool error: see', images })).toEqual(images);
    expect(outcomeImages({ kind: 'ok', text: 'see' })).toEqual([]);
    expect(outcomeImages({ kind: 'blocked', reason: 'no' })).toEqual([]);
  });
});

describe('readsAsFailure (a trusted history, text only)', () => {
  it.each([
    ["⛔ 'repo_read' is locked: call 'repo_open' first.", true],
    ['tool error: disk full', true],
    ['tool error:no space', true],
    ['opened', false],
    ['  tool error: indented, so the tool said it', false],
  ])('%j: %s', (text, failed) => {
    expect(readsAsFailure(text)).toBe(failed);
  });
});
