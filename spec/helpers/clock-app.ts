import { localTrellis } from '../../lib/trellis/local';
import type { ScriptStep } from '../../fixtures/model-server';

/** The app the middleware's specs ask the time of: one tool, a binding for model `agent`, and the question. */
export const trellis = localTrellis([{ name: 'clock_now', handler: () => '2026-11-30T08:00:00Z' }]);
export const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];
export const body = {
  model: 'agent',
  messages: [{ role: 'user', content: 'what time is it?' }],
  temperature: 0.2,
  user: 'u-1',
};

/** The model's part: it calls the clock, then says the time. */
export const clockScript: ScriptStep[] = [{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00 UTC.' }];
