import type { LoopRecorder, LoopRecordView, ToolCallRecord, TurnRecord } from './loop-records';
import type { Store } from '../store/store';

/** How often a replica writes its running loops to the store. */
const BEAT_MS = 1000;
/** A replica that stopped writing (it died) drops out of the list after this. */
const GONE_MS = 5000;
const PREFIX = 'loops:';

export type FleetLoopView = LoopRecordView & { replica: string };

const callWithout = ({ arguments: _arguments, result: _result, ...call }: ToolCallRecord): ToolCallRecord => call;
const turnWithout = ({ content: _content, toolCalls, ...turn }: TurnRecord): TurnRecord => ({
  ...turn,
  toolCalls: toolCalls.map(callWithout),
});

/**
 * A loop as the store gets it: what `captureContent` captured (the model's text, tool arguments and results) stays in
 * this replica's memory, never in Redis in plaintext for whoever reads it there.
 */
const withoutContent = (view: LoopRecordView): LoopRecordView => ({
  ...view,
  turns: view.turns.map(turnWithout),
  ...(view.running ? { running: view.running.map(callWithout) } : {}),
});

/**
 * The loop list of a fleet: each replica writes the loops it runs to the store every second (kept 5 s), and reads
 * everyone's, so `GET /admin/api/loops` on any replica lists the loops running on every one, each with its `replica`.
 * Without a store, or while it is away, the list is this replica's. Captured content is listed for this replica's
 * loops only: it is never written to the store.
 */
export class FleetLoops {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly replica: string,
    private readonly records: LoopRecorder,
    shared: boolean,
  ) {
    this.timer = setInterval(() => void this.beat(), BEAT_MS).unref();
    if (!shared) clearInterval(this.timer);
  }

  /** every replica's running loops, newest first, and this replica's recent ones */
  async snapshot(): Promise<{ inFlight: FleetLoopView[]; recent: FleetLoopView[] }> {
    const own = this.records.snapshot();
    const mine = (view: LoopRecordView) => ({ ...view, replica: this.replica });
    const others = await this.store.entries(PREFIX).catch(() => new Map<string, string>());
    others.delete(PREFIX + this.replica);
    const theirs = [...others].flatMap(([key, text]) =>
      (JSON.parse(text) as LoopRecordView[]).map((view) => ({ ...view, replica: key.slice(PREFIX.length) })),
    );
    const inFlight = [...own.inFlight.map(mine), ...theirs].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    return { inFlight, recent: own.recent.map(mine) };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.store.delete(PREFIX + this.replica).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    await this.store
      .set(PREFIX + this.replica, JSON.stringify(this.records.inFlight().map(withoutContent)), { ttlMs: GONE_MS })
      .catch(() => undefined);
  }
}
