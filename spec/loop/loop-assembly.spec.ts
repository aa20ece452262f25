import request from 'supertest';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { buildGateway } from '../helpers/gateway';

const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const ask = { model: 'agent-1', messages: [{ role: 'user', content: 'what time is it?' }] };

describe("the Loop assembled from the wire's session and the binding", () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer();
  });
  afterEach(() => model.close());

  it("offers the binding's tools in the wire's session, and its turns reach the model through the front door", async () => {
    model.setScript([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00.' }]);
    const bindings = [{ name: 'clock', match: { model: 'agent-*' }, hierarchy: 'clock_now' }];
    const { app, seen } = buildGateway(model.url, { trellis, bindings });
    const res = await request(app).post('/v1/chat/completions').send(ask).expect(200);
    expect(res.body.choices[0].message.content).toBe('It is 08:00.');
    const offered = model.requests[0].body.tools as { function: { name: string } }[];
    expect(offered.map((tool) => tool.function.name)).toEqual(['clock_now']);
    expect(seen.filter((one) => one.internal)).toHaveLength(2);
  });

  it("stops at the binding's maxTurns", async () => {
    model.setScript(() => ({ toolCalls: [{ name: 'clock_now' }] }));
    const bindings = [{ name: 'clock', match: { model: 'agent-*' }, hierarchy: 'clock_now', maxTurns: 2 }];
    const { app } = buildGateway(model.url, { trellis, bindings });
    const res = await request(app).post('/v1/chat/completions').send(ask).expect(200);
    expect(res.headers['x-agent-loop-stop']).toBe('max_turns');
    expect(model.requests).toHaveLength(2);
  });
});
