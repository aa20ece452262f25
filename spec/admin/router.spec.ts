import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway, expressVersions } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';
import { listen, type Listening } from '../helpers/listen';

const KEY = 'library-admin-key-0123456789';
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe.each(expressVersions)('loop.admin() mounted by a library user (%s)', (_version, express) => {
  let model: ModelServer;
  let server: Listening | undefined;
  beforeEach(async () => {
    model = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00.' }]);
  });
  afterEach(async () => {
    await server?.close();
    await model.close();
  });

  function mounted(adminOptions: Parameters<ReturnType<typeof buildGateway>['loop']['admin']>[0]) {
    const { logger, lines } = memoryLogger('info');
    const built = buildGateway(model.url, { trellis, bindings, logger }, express);
    built.app.use('/ops/admin', built.loop.admin(adminOptions));
    return { ...built, lines };
  }

  it('serves the API under the path it is mounted at, behind the key, and records the loops from then on', async () => {
    const { app } = mounted({ key: KEY });
    server = await listen(app);
    expect((await request(server.url).get('/ops/admin/api/loops')).status).toBe(401);
    await server.client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'time?' }] });
    const loops = await request(server.url).get('/ops/admin/api/loops').set('authorization', `Bearer ${KEY}`);
    expect(loops.status).toBe(200);
    expect(loops.headers['cache-control']).toBe('no-store');
    expect(
      loops.body.recent.map((loop: { binding: string; stop: string; turn: number }) => [
        loop.binding,
        loop.stop,
        loop.turn,
      ]),
    ).toEqual([['clock', 'final', 2]]);
  });

  it('with auth: false, leaves authentication to the middleware in front', async () => {
    const { app } = mounted({ auth: false });
    server = await listen(app);
    const settings = await request(server.url).patch('/ops/admin/api/settings').send({ defaultMaxTurns: 3 });
    expect(settings.body).toEqual({
      totalBudgetSec: 120,
      defaultMaxTurns: 3,
      maxToolCallsPerTurn: 8,
      bindings: { clock: { maxTurns: 6, toolTimeoutSec: 30 } },
    });
  });
});

describe('settings and judge rules from code', () => {
  it('log what changed with their source, and validate the rules like the option', async () => {
    const { logger, lines } = memoryLogger('info');
    const { loop } = buildGateway('http://127.0.0.1:9/v1', { trellis, bindings, logger });
    loop.settings.update({ bindings: { clock: { toolTimeoutSec: 5 } } });
    expect(lines.find((line) => line.message === 'agent-loop settings changed')).toEqual(
      expect.objectContaining({
        source: 'settings.update()',
        changed: { 'bindings.clock.toolTimeoutSec': { from: 30, to: 5 } },
      }),
    );
    expect(() => loop.judgeRules.replace([{ surface: 'tool_call', action: 'rewrite' }] as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_INVALID_OPTION' }),
    );
    expect(loop.judgeRules.get()).toEqual({ judge: 'none', rules: null });
    await loop.close();
  });
});
