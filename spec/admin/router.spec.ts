import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { AgentLoopError } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway, expressVersions } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';
import { listen, type Listening } from '../helpers/listen';

const KEY = 'library-admin-key-0123456789';
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe.each(expressVersions)("loop.admin() mounted by a library user (%s)", (_version, express) => {
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
    expect(loops.body.recent.map((loop: { binding: string; stop: string; turn: number }) => [loop.binding, loop.stop, loop.turn])).toEqual([['clock', 'final', 2]]);
  });

  it('with auth: false, leaves authentication to the middleware in front', async () => {
    const { app } = mounted({ auth: false });
    server = await listen(app);
    const settings = await request(server.url).patch('/ops/admin/api/settings').send({ defaultMaxTurns: 3 });
    expect(settings.body).toEqual({ totalBudgetSec: 120, defaultMaxTurns: 3, maxToolCallsPerTurn: 8, bindings: { clock: { maxTurns: 6, toolTimeoutSec: 30 } } });
  });
});

describe('loop.admin() options', () => {
  const { loop } = buildGateway('http://127.0.0.1:9/v1', { trellis, bindings });
  afterAll(() => loop.close());

  it.each([
    [undefined, 'ERR_AGENT_LOOP_NO_ADMIN_KEY', "loop.admin: option 'key' is missing; give the admin key, at least 16 characters, e.g. loop.admin({ key: process.env.AGENT_LOOP_ADMIN_KEY }) (openssl rand -hex 32 makes one), or loop.admin({ auth: false }) when your own middleware in front authenticates."],
    [{ key: 'short-secret' }, 'ERR_AGENT_LOOP_NO_ADMIN_KEY', "loop.admin: option 'key' is a string of 12 characters (not shown); give the admin key"],
    [{ key: process.env.UNSET_ADMIN_KEY }, 'ERR_AGENT_LOOP_NO_ADMIN_KEY', "loop.admin: option 'key' is missing;"],
    [{ auth: true }, 'ERR_AGENT_LOOP_INVALID_OPTION', "loop.admin: option 'auth' is true; only auth: false is an option (it turns authentication off)"],
    [{ auth: false, key: KEY }, 'ERR_AGENT_LOOP_INVALID_OPTION', 'loop.admin: give either key or auth: false, not both'],
    [{ kee: KEY }, 'ERR_AGENT_LOOP_UNKNOWN_OPTION', "loop.admin: unknown option 'kee'. Known options here: key, auth."],
  ])('refuses %j with %s, never showing the key', (options, code, message) => {
    let thrown: unknown;
    try {
      loop.admin(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentLoopError);
    expect(thrown).toEqual(expect.objectContaining({ code, message: expect.stringContaining(message) }));
    expect((thrown as Error).message).not.toContain('short-secret');
  });
});

describe('settings and judge rules from code', () => {
  it('log what changed with their source, and validate the rules like the option', async () => {
    const { logger, lines } = memoryLogger('info');
    const { loop } = buildGateway('http://127.0.0.1:9/v1', { trellis, bindings, logger });
    loop.settings.update({ bindings: { clock: { toolTimeoutSec: 5 } } });
    expect(lines.find((line) => line.message === 'agent-loop settings changed')).toEqual(expect.objectContaining({ source: 'settings.update()', changed: { 'bindings.clock.toolTimeoutSec': { from: 30, to: 5 } } }));
    expect(() => loop.judgeRules.replace([{ surface: 'tool_call', action: 'rewrite' }] as never)).toThrow(expect.objectContaining({ code: 'ERR_AGENT_LOOP_INVALID_OPTION' }));
    expect(loop.judgeRules.get()).toEqual({ judge: 'none', rules: null });
    await loop.close();
  });
});
