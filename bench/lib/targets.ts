import type { Figures, Latency } from './measure';
import type { Summary } from './report';
import { round } from './stats';

export interface TargetRow {
  target: string;
  figures: string;
  verdict: string;
}

const OURS = 'agent-loop';
const n = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value) ? '?' : round(value, digits).toLocaleString('en-US');

/** Issue 14's targets (issue 6's, restated), judged on the figures of this run only (ratios within one run). */
export function targets(summary: Summary[]): TargetRow[] {
  const at = (name: string, latency: Latency) => summary.find((system) => system.name === name)?.median?.[latency];

  function compare(
    target: string,
    latency: Latency,
    peer: string | undefined,
    judge: (ours: Figures, other: Figures) => [string, boolean],
  ): TargetRow {
    const ours = at(OURS, latency);
    const other = peer ? at(peer, latency) : ({} as Figures);
    if (!ours) return { target, figures: '–', verdict: `n/a: ${OURS} did not run` };
    if (peer && !other) return { target, figures: '–', verdict: `n/a: ${peer} did not run` };
    const [figures, met] = judge(ours, other as Figures);
    const onFigures = `on the figures alone: ${met ? 'met' : 'not met'}`;
    if (ours.failures) return { target, figures, verdict: `NOT met: ${OURS} fails verification (${onFigures})` };
    if (peer && other?.failures) return { target, figures, verdict: `n/a: ${peer} fails verification (${onFigures})` };
    return { target, figures, verdict: met ? 'met' : 'NOT met' };
  }

  const cpuRatio = (peer: string, max: number, latency: Latency) =>
    compare(`CPU per turn ≤ ${max}x \`${peer}\` (${latency} ms)`, latency, peer, (ours, other) => {
      const ratio = ours.cpuPerTurnUs / other.cpuPerTurnUs;
      return [`${n(ours.cpuPerTurnUs)} vs ${n(other.cpuPerTurnUs)} µs: ${n(ratio, 2)}x`, ratio <= max];
    });

  const throughput = (latency: Latency) =>
    compare(`loops/s at 64 clients ≥ 2x \`ai-sdk\` (${latency} ms)`, latency, 'ai-sdk', (ours, other) => {
      const ratio = ours.loopsPerSec / other.loopsPerSec;
      return [`${n(ours.loopsPerSec)} vs ${n(other.loopsPerSec)}: ${n(ratio, 2)}x`, ratio >= 2];
    });

  const overhead = (latency: Latency) =>
    compare(
      `overhead per turn (p50) below \`ai-sdk\` and \`openai-agents\` (${latency} ms)`,
      latency,
      'ai-sdk',
      (ours) => {
        const agents = at('openai-agents', latency);
        const sdk = at('ai-sdk', latency) as Figures;
        const met =
          ours.overheadPerTurnUs < sdk.overheadPerTurnUs &&
          !!agents &&
          !agents.failures &&
          ours.overheadPerTurnUs < agents.overheadPerTurnUs;
        return [
          `${n(ours.overheadPerTurnUs)} vs ${n(sdk.overheadPerTurnUs)} and ${n(agents?.overheadPerTurnUs)} µs`,
          met,
        ];
      },
    );

  const ttfb = (latency: Latency) =>
    compare(
      `stream: time to first byte of the final answer ≤ \`hand-loop\` + 2 ms (${latency} ms)`,
      latency,
      'hand-loop',
      (ours, other) => [
        `${n(ours.ttfbP50Ms, 2)} vs ${n(other.ttfbP50Ms, 2)} ms`,
        ours.ttfbP50Ms <= other.ttfbP50Ms + 2,
      ],
    );

  const both = <T>(row: (latency: Latency) => T): T[] => [row(0), row(20)];
  return [
    ...both((latency) => cpuRatio('hand-loop', 1.6, latency)),
    ...both((latency) => cpuRatio('ai-sdk', 0.45, latency)),
    ...both((latency) => cpuRatio('openai-agents', 0.25, latency)),
    ...both(throughput),
    ...both(overhead),
    compare(
      'RSS per parked loop < 64 KiB (1,000 more loops parked on the tool, 1,000 already parked)',
      0,
      undefined,
      (ours) => [
        `${n(ours.rssPerLoopKiB, 1)} KiB (heap+external ${n(ours.heapPerLoopKiB, 1)} KiB), ${n(ours.parked)} parked; ` +
          `the first 1,000, with the process's one-off growth: ${n(ours.firstWaveRssPerLoopKiB, 1)} KiB`,
        (ours.rssPerLoopKiB ?? Infinity) < 64,
      ],
    ),
    ...both(ttfb),
  ];
}
