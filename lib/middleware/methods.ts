import type { Router } from 'express';
import type { AdminOptions } from '../admin/options';
import { adminRouter } from '../admin/router';
import { FleetLoops } from '../telemetry/fleet-loops';
import { LoopRecorder } from '../telemetry/loop-records';
import { Telemetry } from '../telemetry/loop-telemetry';
import { closeIdleWorkers } from '../code-mode/warm-workers';
import type { Parts } from './parts';

/** The admin API and page; the first call starts recording loops for it. */
export function adminOf(parts: Parts, adminOptions: AdminOptions): Router {
  const { config, store, replica, settings, bindings, judge, keyBudget, signIns, logger } = parts;
  const records = (parts.admin.records ??= new LoopRecorder(config.telemetry?.captureContent === true));
  const loops = (parts.admin.loops ??= new FleetLoops(store, replica, records, config.store !== undefined));
  const router = adminRouter(
    {
      settings,
      bindings,
      judge,
      loops,
      budgets: keyBudget,
      captureContent: config.telemetry?.captureContent === true,
      tokens: signIns.vault,
    },
    adminOptions,
    logger,
  );
  parts.services.telemetry = Telemetry.recording(parts.telemetry, records);
  return router;
}

export async function readiness(
  { inFlight, store, bindings }: Parts,
  signal?: AbortSignal,
): Promise<Record<string, string>> {
  const down: Record<string, string> = inFlight.closing ? { 'agent-loop': 'shutting down' } : {};
  if (store.unreachable !== undefined) down.store = `${store.description}: ${store.unreachable}`;
  await Promise.all(
    bindings.all.map(async function listedOnce({ name, catalog, trellis }) {
      // each user lists their own tools: there is no listing of the binding's to wait for
      if (trellis.forRequest) return;
      if (catalog.unlisted !== undefined) await catalog.tools(signal);
      if (catalog.unlisted !== undefined) down[`trellis ${name}`] = catalog.unlisted;
    }),
  );
  return down;
}

export async function closed(parts: Parts, shutdownDrainSec: number): Promise<void> {
  const { inFlight, logger } = parts;
  if (inFlight.size > 0)
    logger.info('agent-loop draining: waiting for in-flight loops', { inFlight: inFlight.size, shutdownDrainSec });
  const ended = await inFlight.drain(shutdownDrainSec);
  if (ended > 0)
    logger.warn('agent-loop drain ran out; in-flight loops ended with the shutdown note', { ended, shutdownDrainSec });
  parts.caller.close();
  await parts.admin.loops?.close();
  await Promise.all([...parts.owned.map((trellis) => trellis.close?.()), parts.store.close(), closeIdleWorkers()]);
}
