import { agentLoop } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { memoryLogger } from '../helpers/memory-logger';

const trellis = localTrellis([{ name: 'a', handler: () => 'a' }]);
const binding = { name: 'b', match: { model: '*' }, hierarchy: 'a' };
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const CHANGED = 'agent-loop settings changed';

describe('the run-time settings (loop.settings)', () => {
  it('validates run-time settings like the options, keeping the old ones on a bad update', () => {
    const loop = agentLoop({ trellis, bindings: [binding], logger: quiet });
    expect(() => loop.settings.update({ totalBudgetSec: 0 })).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_OUT_OF_RANGE' }),
    );
    expect(() => loop.settings.update({ maxTokensPerLoop: 1.5 })).toThrow(
      "agentLoop: option 'maxTokensPerLoop' is 1.5; it must be a whole number from 1 to 1000000000",
    );
    expect(() => loop.settings.update({ maxTurns: 3 } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_UNKNOWN_OPTION' }),
    );
    expect(loop.settings.update({ totalBudgetSec: 30 })).toEqual({
      totalBudgetSec: 30,
      defaultMaxTurns: 6,
      maxToolCallsPerTurn: 8,
      bindings: { b: { maxTurns: 6, toolTimeoutSec: 30 } },
    });
    expect(loop.settings.get().totalBudgetSec).toBe(30);
  });

  it('tunes one binding without touching the others or the global values, and logs each change by its dotted path', () => {
    const { logger, lines } = memoryLogger('info');
    const loop = agentLoop({ trellis, bindings: [binding, { ...binding, name: 'c', maxTurns: 3 }], logger });
    expect(loop.settings.update({ defaultMaxTurns: 4, bindings: { c: { toolTimeoutSec: 5 } } })).toEqual({
      totalBudgetSec: 120,
      defaultMaxTurns: 4,
      maxToolCallsPerTurn: 8,
      bindings: { b: { maxTurns: 6, toolTimeoutSec: 30 }, c: { maxTurns: 3, toolTimeoutSec: 5 } },
    });
    expect(lines.filter((line) => line.message === CHANGED)).toEqual([
      {
        level: 'info',
        message: CHANGED,
        source: 'settings.update()',
        changed: { defaultMaxTurns: { from: 6, to: 4 }, 'bindings.c.toolTimeoutSec': { from: 30, to: 5 } },
      },
    ]);
  });

  it('logs nothing when nothing changed', () => {
    const { logger, lines } = memoryLogger('info');
    const loop = agentLoop({ trellis, bindings: [binding], logger });
    loop.settings.update({ totalBudgetSec: 120, bindings: { b: { maxTurns: 6 } } });
    expect(lines.filter((line) => line.message === CHANGED)).toEqual([]);
  });

  it('takes maxTokensPerLoop away again with null, logging it as a change to null', () => {
    const { logger, lines } = memoryLogger('info');
    const loop = agentLoop({ trellis, bindings: [binding], logger, maxTokensPerLoop: 5000 });
    expect(loop.settings.get().maxTokensPerLoop).toBe(5000);
    expect(loop.settings.update({ maxTokensPerLoop: null } as never)).not.toHaveProperty('maxTokensPerLoop');
    expect(lines.filter((line) => line.message === CHANGED).map((line) => line.changed)).toEqual([
      { maxTokensPerLoop: { from: 5000, to: null } },
    ]);
  });

  it.each([
    [{ bindings: { nope: { maxTurns: 2 } } }, "unknown option 'bindings.nope'"],
    [{ bindings: { b: 'fast' } }, 'option \'bindings.b\' is "fast"'],
    [{ bindings: [] }, "option 'bindings' is []"],
    ['faster', 'option \'(options)\' is "faster"'],
  ])('refuses %j by name, changing nothing', (patch, said) => {
    const loop = agentLoop({ trellis, bindings: [binding], logger: quiet });
    const before = loop.settings.get();
    expect(() => loop.settings.update(patch as never)).toThrow(said);
    expect(loop.settings.get()).toEqual(before);
  });
});
