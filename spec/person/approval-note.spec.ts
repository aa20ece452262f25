import { noteApproval } from '../../lib/person/approval-note';
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
      id: 'loop-1',
      binding: { name: 'notes' },
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
        tool: 'notes_delete',
        ...(outcome === 'asked' ? {} : { reason: 'keep it' }),
      },
    ]);
  });
});
