import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { agentLoop } from '../../lib';
import { reloadConfig } from '../../lib/gateway/reload';
import { loopOptions } from '../../lib/options/agent-loop';
import { docRows } from '../../lib/options/declaration';
import { asPatch, BINDING_TUNABLE, LIFTABLE, NUMBER_FIELDS, TUNABLE } from '../../lib/options/tunables';
import { memoryLogger } from '../helpers/memory-logger';

/** A value of each tunable other than its default: a tunable declared without one here fails the first test. */
const SAMPLES: Record<string, unknown> = {
  totalBudgetSec: 45,
  defaultMaxTurns: 3,
  maxToolCallsPerTurn: 2,
  maxTokensPerLoop: 9000,
  keyBudget: { tokens: 1000, windowSec: 60 },
};
const BINDING_SAMPLES: Record<string, unknown> = { maxTurns: 2, toolTimeoutSec: 5 };

const binding = { name: 'b', match: { model: '*' }, hierarchy: 'a' };
/** the gateway's config file: JSON, so its Trellis is an MCP server's address (never reached here) */
const started = { upstream: { url: 'http://127.0.0.1:9/v1' }, trellis: { mcp: { url: 'http://127.0.0.1:9/mcp' } } };
const { upstream: _upstream, ...options } = started;

describe('the run-time tunables, each declared once', () => {
  it('are the options the docs call run-time tunable, each with a sample here', () => {
    const documented = docRows(loopOptions)
      .filter((row) => row.does.endsWith('run-time tunable'))
      .map((row) => row.option);
    expect(TUNABLE).toEqual(documented);
    expect(Object.keys(SAMPLES)).toEqual(TUNABLE);
    expect(Object.keys(BINDING_SAMPLES)).toEqual(BINDING_TUNABLE);
    expect(LIFTABLE).toEqual(['maxTokensPerLoop', 'keyBudget']);
  });

  it('are each shown by settings.get(), changed by settings.update() and by a SIGHUP reload', async () => {
    const { logger } = memoryLogger('error');
    const bindings = { b: BINDING_SAMPLES };
    const updated = agentLoop({ ...options, bindings: [binding], logger });
    const reloaded = agentLoop({ ...options, bindings: [binding], logger });
    try {
      expect(updated.settings.update({ ...SAMPLES, bindings })).toEqual({ ...SAMPLES, bindings });

      const file = path.join(mkdtempSync(path.join(tmpdir(), 'agent-loop-tunables-')), 'gateway.json');
      writeFileSync(file, JSON.stringify({ ...started, ...SAMPLES, bindings: [{ ...binding, ...BINDING_SAMPLES }] }));
      const warnings = memoryLogger('warn');
      expect(reloadConfig(file, reloaded, { ...started, bindings: [binding] }, warnings.logger)).toBe(true);
      expect(reloaded.settings.get()).toEqual({ ...SAMPLES, bindings });
      // a tunable never takes a restart
      expect(warnings.lines).toEqual([]);
    } finally {
      await Promise.all([updated.close(), reloaded.close()]);
    }
  });

  it("gives the admin page's form each whole-number tunable with its declared range, lifted ones left empty", () => {
    expect(NUMBER_FIELDS).toEqual({
      settings: [
        { name: 'totalBudgetSec', min: 1, max: 3600, optional: false },
        { name: 'defaultMaxTurns', min: 1, max: 50, optional: false },
        { name: 'maxToolCallsPerTurn', min: 1, max: 64, optional: false },
        { name: 'maxTokensPerLoop', min: 1, max: 1_000_000_000, optional: true },
      ],
      bindings: [
        { name: 'maxTurns', min: 1, max: 50, optional: false },
        { name: 'toolTimeoutSec', min: 1, max: 300, optional: false },
      ],
    });
    // every tunable but the one that is not a number (keyBudget: tokens per window) is a field
    expect(NUMBER_FIELDS.settings.map((field) => field.name)).toEqual(TUNABLE.filter((name) => name !== 'keyBudget'));
    expect(NUMBER_FIELDS.bindings.map((field) => field.name)).toEqual(BINDING_TUNABLE);
  });

  it('says a lifted budget as null in a patch, so that it lifts it where the patch applies', () => {
    expect(asPatch({ totalBudgetSec: 1, defaultMaxTurns: 2, maxToolCallsPerTurn: 3 })).toEqual({
      totalBudgetSec: 1,
      defaultMaxTurns: 2,
      maxToolCallsPerTurn: 3,
      maxTokensPerLoop: null,
      keyBudget: null,
    });
  });
});
