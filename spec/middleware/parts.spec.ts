import { assemble } from '../../lib/middleware/parts';
import { closed } from '../../lib/middleware/methods';
import { configOf } from '../../lib/options/agent-loop';
import { localTrellis } from '../../lib/trellis/local';
import { memoryLogger } from '../helpers/memory-logger';

const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe('the parts of one agentLoop, made once at factory time', () => {
  it('gives every loop the same config, caller, hand-back seals and the settings in force', async () => {
    const parts = assemble(configOf({ trellis, bindings, logger: memoryLogger('error').logger }));
    try {
      const { services } = parts;
      expect(services.config).toBe(parts.config);
      expect(services.caller).toBe(parts.caller);
      expect(services.continuations).toBe(parts.continuations);
      expect(services.answerIds).toBe(parts.answerIds);
      expect(services.keyBudget).toBe(parts.keyBudget);
      expect(services.shutdown).toBe(parts.inFlight.shutdownSignal);
      expect(parts.maxConcurrentLoops).toBe(Infinity);
      expect(parts.bindings.all.map((binding) => binding.name)).toEqual(['clock']);
      parts.settings.update({ totalBudgetSec: 77 });
      expect(services.settings().totalBudgetSec).toBe(77);
    } finally {
      await closed(parts, 0);
    }
  });

  it('refuses a placeholder internalSecret before it opens anything', () => {
    const internalSecret = 'change-me-change-me-change-me-change-me';
    expect(() => assemble(configOf({ internalSecret, logger: memoryLogger('error').logger }))).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_PLACEHOLDER_SECRET' }),
    );
  });
});
