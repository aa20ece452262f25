import { noteInput } from '../../lib/person/input-note';
import { memoryLogger } from '../helpers/memory-logger';

type NotedLoop = Parameters<typeof noteInput>[0];

describe("noteInput: every question's step in the log and the telemetry, field names and never values", () => {
  it.each([
    ['asked', 'info'],
    ['answered', 'info'],
    ['declined', 'info'],
    ['refused', 'warn'],
  ] as const)('%s logs at %s and tells the telemetry', (outcome, level) => {
    const { logger, lines } = memoryLogger('info');
    const told: string[][] = [];
    const loop = {
      id: 'loop-1',
      binding: { name: 'payments' },
      logger,
      telemetry: { input: (tool: string, step: string) => told.push([tool, step]) },
    } as unknown as NotedLoop;
    const question = {
      tool: 'pay',
      message: 'Pay?',
      mode: 'form' as const,
      requestedSchema: { type: 'object', properties: { account: { type: 'string' } } },
    };
    noteInput(loop, 'pay', outcome, { question, ...(outcome === 'refused' ? { reason: 'expired' } : {}) });
    expect(told).toEqual([['pay', outcome]]);
    expect(lines).toEqual([
      {
        level,
        message: `agent-loop input ${outcome}`,
        loopId: 'loop-1',
        binding: 'payments',
        tool: 'pay',
        mode: 'form',
        fields: ['account'],
        ...(outcome === 'refused' ? { reason: 'expired' } : {}),
      },
    ]);
  });
});
