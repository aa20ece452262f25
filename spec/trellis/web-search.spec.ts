import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startSearxng, type FakeSearxng } from '../../fixtures/searxng';
import { webSearchTrellis } from '../../lib/trellis/web-search';
import { buildGateway } from '../helpers/gateway';

const ask = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-x',
  messages: [{ role: 'user', content: 'news about otters?' }],
  ...extra,
});

describe('the web_search-only loop', () => {
  let model: ModelServer;
  let searxng: FakeSearxng;
  beforeEach(async () => {
    model = await startModelServer([
      { toolCalls: [{ id: 'w', name: 'web_search', arguments: { query: 'otters' } }] },
      { content: 'Otters hold hands.' },
    ]);
    searxng = await startSearxng();
  });
  afterEach(async () => {
    await model.close();
    await searxng.close();
  });

  it('runs for a request with web_search_options when no binding applies, with the top results as text', async () => {
    const { app } = buildGateway(model.url, { webSearch: { searxngUrl: searxng.url, maxResults: 2 } });
    const res = await request(app)
      .post('/v1/chat/completions')
      .send(ask({ web_search_options: {} }))
      .expect(200);
    expect(res.body.choices[0].message.content).toBe('Otters hold hands.');
    expect(searxng.queries).toEqual(['otters']);
    expect(model.requests[0].body.tools).toEqual([
      expect.objectContaining({ function: expect.objectContaining({ name: 'web_search' }) }),
    ]);
    expect(model.requests[0].body.web_search_options).toBeUndefined();
    expect(model.requests[1].body.messages[2].content).toBe(
      '1. otters result 1\n   https://example.org/otters/1\n   Snippet 1 about otters.\n2. otters result 2\n   https://example.org/otters/2\n   Snippet 2 about otters.',
    );
  });

  it('leaves a request without web_search_options alone unless always is set', async () => {
    const { app } = buildGateway(model.url, { webSearch: { searxngUrl: searxng.url } });
    const plain = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(plain.headers['x-agent-loop-turns']).toBeUndefined();
    expect(model.requests[0].body.tools).toBeUndefined();

    const always = buildGateway(model.url, { webSearch: { searxngUrl: searxng.url, always: true } });
    const looped = await request(always.app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(looped.headers['x-agent-loop-turns']).toBe('2');
  });

  it('uses defaultMaxTurns and turns a failing search into a readable tool error', async () => {
    model.setScript(() => ({ toolCalls: [{ name: 'web_search', arguments: { query: 'fail' } }] }));
    const { app } = buildGateway(model.url, {
      webSearch: { searxngUrl: searxng.url, always: true },
      defaultMaxTurns: 2,
    });
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(model.requests).toHaveLength(2);
    expect(res.headers['x-agent-loop-stop']).toBe('max_turns');
    expect(model.requests[1].body.messages[2].content).toBe(
      'tool error: web search failed: Request failed with status code 500',
    );
  });

  it('answers an empty query with the tool saying what it needs', async () => {
    model.setScript([{ toolCalls: [{ name: 'web_search', arguments: { query: ' ' } }] }, { content: 'ok' }]);
    const { app } = buildGateway(model.url, { webSearch: { searxngUrl: searxng.url, always: true } });
    await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(model.requests[1].body.messages[2].content).toBe("tool error: web_search needs a non-empty 'query' string");
    expect(searxng.queries).toEqual([]);
  });
});

describe('webSearchTrellis options', () => {
  it.each([
    [
      { searxngUrl: 'http://127.0.0.1:8888', maxResults: 0.5 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "webSearchTrellis: option 'maxResults' is 0.5; it must be a whole number from 1 to 20 (default 5), e.g. maxResults: 5.",
    ],
    [
      { searxngUrl: '127.0.0.1:8888' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `webSearchTrellis: option 'searxngUrl' is "127.0.0.1:8888"; it must be the base URL of a SearXNG instance with the JSON format enabled, e.g. 'http://127.0.0.1:8888'.`,
    ],
    [
      { searxngURL: 'http://127.0.0.1:8888' },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "webSearchTrellis: unknown option 'searxngURL'. Did you mean `searxngUrl`?",
    ],
  ])('refuses %j like the webSearch option, naming the fix', (options, code, message) => {
    expect(() => webSearchTrellis(options as never)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) }),
    );
  });
});
