import { verdictProblem } from '../../lib/judge/verdict';
import type { JudgeSurface } from '../../lib/types';

describe('verdictProblem', () => {
  it.each<[string, unknown, JudgeSurface]>([
    ['an allow', { action: 'allow' }, 'tool_call'],
    ['a block with a reason', { action: 'block', reason: 'no shell' }, 'context'],
    ['a tool_call rewrite of the arguments', { action: 'rewrite', arguments: { path: '/srv' } }, 'tool_call'],
    ['a context rewrite of the result', { action: 'rewrite', result: '' }, 'context'],
    ['an ask', { action: 'ask', reason: 'it deletes' }, 'tool_call'],
    ['an ask with its arguments', { action: 'ask', arguments: { path: '/srv' } }, 'tool_call'],
  ])('takes %s', (_name, verdict, surface) => {
    expect(verdictProblem(verdict, surface)).toBeUndefined();
  });

  it.each<[string, unknown, JudgeSurface, string]>([
    ['nothing', undefined, 'tool_call', 'the verdict is not an object'],
    ['a string', 'allow', 'tool_call', 'the verdict is not an object'],
    ['a list', [{ action: 'allow' }], 'tool_call', 'the verdict is not an object'],
    ['a block without a reason', { action: 'block' }, 'tool_call', 'a block needs a reason'],
    ['a block with a blank reason', { action: 'block', reason: '  ' }, 'context', 'a block needs a reason'],
    [
      'a tool_call rewrite without arguments',
      { action: 'rewrite', result: 'x' },
      'tool_call',
      'a tool_call rewrite needs an arguments object',
    ],
    [
      'a tool_call rewrite with a list of arguments',
      { action: 'rewrite', arguments: [] },
      'tool_call',
      'a tool_call rewrite needs an arguments object',
    ],
    [
      'a context rewrite without a result',
      { action: 'rewrite', arguments: {} },
      'context',
      'a context rewrite needs a result string',
    ],
    [
      'an ask on a result',
      { action: 'ask' },
      'context',
      'ask applies to the tool_call surface: a result cannot wait for approval',
    ],
    [
      'an ask with arguments that are no object',
      { action: 'ask', arguments: 'rm -rf /' },
      'tool_call',
      "an ask's arguments must be an object",
    ],
    ['an unknown action', { action: 'deny' }, 'tool_call', 'action must be allow, block, rewrite or ask, got "deny"'],
    ['no action', {}, 'tool_call', 'action must be allow, block, rewrite or ask, got none'],
  ])('refuses %s', (_name, verdict, surface, problem) => {
    expect(verdictProblem(verdict, surface)).toBe(problem);
  });
});
