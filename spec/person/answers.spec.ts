import { answerApprovals } from '../../lib/person/answers';
import type { PersonDecision } from '../../lib/person/approval-decision';
import type { SealedInput } from '../../lib/person/input';
import type { WireCall } from '../../lib/loop/wire';
import type { ToolOutcome } from '../../lib/loop/tool-outcome';
import { memoryLogger } from '../helpers/memory-logger';

type AnsweringLoop = Parameters<typeof answerApprovals>[0];

/** A loop that records what the answers added to its conversation; no call runs in these cases. */
function answeringLoop() {
  const { logger, lines } = memoryLogger('info');
  const added: { calls: WireCall[]; outcomes: ToolOutcome[] }[] = [];
  const told: string[][] = [];
  const loop = {
    id: 'loop-1',
    binding: { name: 'notes' },
    logger,
    stats: { toolCalls: 0 },
    telemetry: {
      approval: (tool: string, step: string) => told.push(['approval', tool, step]),
      input: (tool: string, step: string) => told.push(['input', tool, step]),
    },
    conversation: { addOutcomes: (calls: WireCall[], outcomes: ToolOutcome[]) => added.push({ calls, outcomes }) },
  } as unknown as AnsweringLoop;
  return { loop, lines, added, told };
}

const question = { tool: 'profile', message: 'Name?', mode: 'form' as const, requestedSchema: { type: 'object' } };
const sealed: SealedInput = {
  callId: 'call_p',
  tool: 'profile',
  arguments: {},
  key: 'name',
  keys: ['name'],
  question,
  answered: {},
  round: 1,
  group: 'g1',
};

describe('answerApprovals: what the answers do once read and recorded', () => {
  it('gives a denied call and a refused question their refusals, in one addition to the conversation', async () => {
    const { loop, lines, added, told } = answeringLoop();
    const decisions: PersonDecision[] = [
      {
        outcome: 'denied',
        tool: 'notes_delete',
        callId: 'call_del',
        refusal: { why: 'denied', reason: 'keep it' },
        reason: 'keep it',
      },
      {
        outcome: 'expired',
        input: true,
        tool: 'profile',
        callId: 'call_p',
        refusal: { why: 'expired', ttlSec: 600 },
        reason: 'expired',
      },
    ];
    await expect(answerApprovals(loop, decisions)).resolves.toEqual([]);
    expect(added).toEqual([
      {
        calls: [
          { id: 'call_del', name: 'notes_delete', arguments: undefined, index: 0 },
          { id: 'call_p', name: 'profile', arguments: undefined, index: 0 },
        ],
        outcomes: [
          { kind: 'unapproved', tool: 'notes_delete', why: 'denied', reason: 'keep it' },
          { kind: 'unanswered', tool: 'profile', why: 'expired', ttlSec: 600 },
        ],
      },
    ]);
    expect(told).toEqual([
      ['input', 'profile', 'refused'],
      ['approval', 'notes_delete', 'denied'],
    ]);
    expect(lines.map((line) => [line.level, line.message, line.reason])).toEqual([
      ['warn', 'agent-loop input refused', 'expired'],
      ['warn', 'agent-loop approval denied', 'keep it'],
    ]);
  });

  it('reads a declined question as declined, and its call does not run again', async () => {
    const { loop, added } = answeringLoop();
    const decision: PersonDecision = {
      outcome: 'answered',
      tool: 'profile',
      callId: 'call_p',
      arguments: {},
      token: 't',
      sealed,
      given: { action: 'decline' },
    };
    await expect(answerApprovals(loop, [decision])).resolves.toEqual([]);
    expect(added[0].outcomes).toEqual([{ kind: 'unanswered', tool: 'profile', why: 'declined' }]);
    expect(loop.stats.toolCalls).toBe(1);
  });
});
