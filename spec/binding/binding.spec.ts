import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { agentLoop, type AgentLoopOptions } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { memoryLogger } from '../helpers/memory-logger';

const trellis = localTrellis([
  { name: 'clock_now', handler: () => '08:00' },
  { name: 'notes_open', handler: () => 'two notes' },
]);
const clock = { name: 'clock', match: { model: 'agent-*' }, hierarchy: 'clock_now' };
const notes = { name: 'notes', match: { header: { 'X-Team': 'ops-*' } }, hierarchy: 'notes_open' };
describe('bindings: which loop a request gets', () => {
  let model: ModelServer;
  let server: Listening | undefined;
  beforeEach(async () => {
    model = await startModelServer([{ content: 'done' }]);
  });
  afterEach(async () => {
    await server?.close();
    await model.close();
  });

  /** The tools the model was offered for one request (which sends none) through a gateway with `options`: undefined when no loop took it. */
  async function offered(
    options: Partial<AgentLoopOptions>,
    body: { model: string },
    headers: Record<string, string> = {},
  ) {
    const { loop, app } = buildGateway(model.url, { trellis, ...options });
    server = await listen(app);
    const answer = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...body, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status).toBe(200);
    await loop.close();
    const [request] = model.requests;
    const tools = request.body.tools as { function: { name: string } }[] | undefined;
    return tools?.map((tool) => tool.function.name);
  }

  it('takes a request whose model matches the glob, and leaves the others to the normal handler untouched', async () => {
    expect(await offered({ bindings: [clock] }, { model: 'agent-small' })).toEqual(['clock_now']);
    await server!.close();
    server = undefined;
    model.requests.length = 0;
    expect(await offered({ bindings: [clock] }, { model: 'gpt-4o' })).toBeUndefined();
    expect(model.requests[0].body).toEqual({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('matches a header by its name in any case and its value by glob', async () => {
    expect(await offered({ bindings: [notes] }, { model: 'gpt-4o' }, { 'x-team': 'ops-eu' })).toEqual(['notes_open']);
  });

  it('needs the model and every header a binding names', async () => {
    const both = { ...clock, match: { model: 'agent-*', header: { 'x-team': 'ops-*' } } };
    expect(await offered({ bindings: [both] }, { model: 'agent-small' }, { 'x-team': 'dev' })).toBeUndefined();
  });

  it('takes the first binding that matches, in the order given', async () => {
    expect(await offered({ bindings: [{ ...notes, match: { model: '*' } }, clock] }, { model: 'agent-small' })).toEqual(
      ['notes_open'],
    );
  });

  it('matches by a function, and takes one that throws for no match, logging why', async () => {
    const { logger, lines } = memoryLogger();
    const throwing = {
      ...clock,
      match: () => {
        throw new Error('no tenant header');
      },
    };
    expect(await offered({ bindings: [throwing], logger }, { model: 'agent-small' })).toBeUndefined();
    expect(lines).toContainEqual({
      level: 'error',
      message: 'agent-loop binding match function threw; treating as no match',
      binding: 'clock',
      reason: 'no tenant header',
    });
  });

  it('takes a function that answers anything but true for no match', async () => {
    expect(
      await offered({ bindings: [{ ...clock, match: (() => 'yes') as never }] }, { model: 'agent-small' }),
    ).toBeUndefined();
  });
});

describe('activating the bindings', () => {
  it('refuses a binding with tools but no trellis, naming the fix', () => {
    expect(() => agentLoop({ bindings: [clock], logger: memoryLogger().logger })).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_NO_TRELLIS',
        message: expect.stringContaining("option 'bindings[0].trellis' is missing"),
      }),
    );
  });
});
