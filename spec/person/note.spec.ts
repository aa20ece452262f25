import { noteApproval, noteInput } from '../../lib/person/note';
import { memoryLogger } from '../helpers/memory-logger';

type NotedLoop = Parameters<typeof noteApproval>[0];

describe("noteApproval: every approval's step in the log and the telemetry", () => {
  it.each([
    ['asked', 'info'],
    ['granted', 'info'],
    ['denied', 'warn'],
    ['expired', 'warn'],
    ['refused', 'warn'],
  ] as const)('%s logs at %s and tells the telemetry', (outcome, level) => {
    const { logger, lines } = memoryLogger('info');
    const told: string[][] = [];
    const loop = {
      logFields: { loopId: 'loop-1', binding: 'notes', wire: 'chat' },
      logger,
      telemetry: { approval: (tool: string, step: string) => told.push([tool, step]) },
    } as unknown as NotedLoop;
    noteApproval(loop, 'notes_delete', outcome, outcome === 'asked' ? undefined : 'keep it');
    expect(told).toEqual([['notes_delete', outcome]]);
    expect(lines).toEqual([
      {
        level,
        message: `agent-loop approval ${outcome}`,
        loopId: 'loop-1',
        binding: 'notes',
        wire: 'chat',
        tool: 'notes_delete',
        ...(outcome === 'asked' ? {} : { reason: 'keep it' }),
      },
    ]);
  });
});

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
      logFields: { loopId: 'loop-1', binding: 'payments', wire: 'chat' },
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
        wire: 'chat',
        tool: 'pay',
        mode: 'form',
        fields: ['account'],
        ...(outcome === 'refused' ? { reason: 'expired' } : {}),
      },
    ]);
  });
});
