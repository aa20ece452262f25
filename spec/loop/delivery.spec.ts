import { deliver, stopOf } from '../../lib/loop/delivery';
import type { LoopStats } from '../../lib/loop/context';
import type { Answer, Reply } from '../../lib/loop/reply';
import type { LoopResult } from '../../lib/loop/run';
import { memoryLogger } from '../helpers/memory-logger';

const fields = { loopId: 'loop1', binding: 'clock', wire: 'chat' };
const stats: LoopStats = { turns: 2, toolCalls: 1, blocked: 0, repeated: 0, elided: 0 };
const answered: LoopResult = { kind: 'answer', answer: { stop: 'final', text: 'It is 08:00.' } };

/** A reply that records what the loop sent it, and waits on `held` before the answer goes out. */
function recordingReply(held?: Promise<void>) {
  const sent: Array<[Answer, LoopStats]> = [];
  const reply = {
    streams: false,
    committed: false,
    text: () => undefined,
    toolsRunning: () => undefined,
    beforeSend: held && (() => held),
    send: (answer: Answer, outcome: LoopStats) => void sent.push([answer, outcome]),
    dispose: () => undefined,
  } satisfies Reply;
  return { reply, sent };
}

describe('deliver: the answer sent to a client that is still there', () => {
  it('sends the answer once what must hold before it has held, and logs it', async () => {
    let release!: () => void;
    const { reply, sent } = recordingReply(new Promise((resolve) => (release = resolve)));
    const { logger, lines } = memoryLogger('info');
    const delivered = deliver(answered, reply, false, logger, fields, stats);
    await Promise.resolve();
    expect(sent).toEqual([]);
    release();
    await expect(delivered).resolves.toBe(answered);
    expect(sent).toEqual([
      [
        { stop: 'final', text: 'It is 08:00.' },
        { ...fields, ...stats },
      ],
    ]);
    expect(lines).toEqual([
      expect.objectContaining({ message: 'agent-loop answered', ...fields, ...stats, stop: 'final', stream: false }),
    ]);
  });

  it('logs a fall-through with its reason and sends nothing', async () => {
    const { reply, sent } = recordingReply();
    const { logger, lines } = memoryLogger('info');
    const fallthrough: LoopResult = { kind: 'fallthrough', reason: 'error' };
    await expect(deliver(fallthrough, reply, false, logger, fields, stats)).resolves.toBe(fallthrough);
    expect(sent).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({ message: 'agent-loop fell through to the normal handler', ...fields, reason: 'error' }),
    ]);
  });

  it('only logs how the loop ended for a client that went away, and never falls through', async () => {
    const { reply, sent } = recordingReply();
    const { logger, lines } = memoryLogger('info');
    await expect(deliver(answered, reply, true, logger, fields, stats)).resolves.toEqual({ kind: 'abandoned' });
    await deliver({ kind: 'abandoned' }, reply, false, logger, fields, stats);
    expect(sent).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({ message: 'agent-loop finished: the client went away', stop: 'final', turns: 2 }),
      expect.objectContaining({ message: 'agent-loop abandoned: the client went away', stop: 'abandoned' }),
    ]);
  });
});

describe('stopOf: how a loop ended, for metrics and its span', () => {
  it("is the answer's stop, fallthrough, or client_gone", () => {
    expect(stopOf(answered, false)).toBe('final');
    expect(stopOf({ kind: 'fallthrough', reason: 'error' }, false)).toBe('fallthrough');
    expect(stopOf(answered, true)).toBe('client_gone');
    expect(stopOf({ kind: 'abandoned' }, false)).toBe('client_gone');
  });
});
