import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { signMarker } from '../../lib/self-call/marker';
import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { ChildGateway, SCENARIO_TIMEOUT_MS, figure, post } from './harness';

const SECRET = 's'.repeat(40);
const key = Buffer.from(SECRET);
const hour = () => Date.now() + 3_600_000;
const genuine = () => signMarker(key, 'feedfacefeedface', hour());
const flipped = (marker: string) => `${marker.slice(0, -1)}${marker.endsWith('A') ? 'B' : 'A'}`;

const forgeries: [string, () => OutgoingHttpHeaders][] = [
  [
    'a random value of the right shape',
    () => ({
      'x-mcp-internal': `${hour().toString(36)}.${Buffer.concat([Buffer.from([2]), randomBytes(68)]).toString('base64url')}`,
    }),
  ],
  ['an empty value', () => ({ 'x-mcp-internal': '' })],
  ['a wrong signature', () => ({ 'x-mcp-internal': flipped(genuine()) })],
  [
    "another process's secret",
    () => ({ 'x-mcp-internal': signMarker(Buffer.from('o'.repeat(40)), 'feedfacefeedface', hour()) }),
  ],
  ['an expired marker', () => ({ 'x-mcp-internal': signMarker(key, 'feedfacefeedface', Date.now() - 1_000) })],
  ['a genuine marker on two header lines', () => ({ 'x-mcp-internal': [genuine(), genuine()] })],
  ['a genuine and a forged header line', () => ({ 'x-mcp-internal': [genuine(), flipped(genuine())] })],
  ['a genuine marker in upper case', () => ({ 'x-mcp-internal': genuine().toUpperCase() })],
  ['an odd-case header name with a forged value', () => ({ 'X-Mcp-INTERNAL': flipped(genuine()) })],
  ['a genuine marker with whitespace inside', () => ({ 'x-mcp-internal': genuine().replace('.', '. ') })],
  ['a genuine marker with a tab and more after it', () => ({ 'x-mcp-internal': `${genuine()}\tv1` })],
  [
    'a forged marker named hop-by-hop in Connection',
    () => ({ connection: 'keep-alive, X-MCP-Internal', 'x-mcp-internal': flipped(genuine()) }),
  ],
  ['a 10 kB marker', () => ({ 'x-mcp-internal': `${hour().toString(36)}.${'f'.repeat(10_000)}` })],
];

describe('reliability: forged markers', () => {
  let model: ModelServer;
  let mcp: McpFixtureServer;
  let passedOn = 0;
  let gateway: ChildGateway;
  const trusted: string[] = [];

  beforeAll(async () => {
    // The loop's turns carry its tools; the normal handler's request (a trusted marker skipped the loop) does not.
    // The first turn asks for the MCP server's clock, so the loop's Trellis call shows whether a marker reaches it.
    model = await startModelServer((body) => {
      if (body.tools === undefined) return { content: 'the loop was skipped' };
      return body.messages.some((m) => m.role === 'tool')
        ? { content: 'the loop ran' }
        : { toolCalls: [{ name: 'clock_now' }] };
    });
    mcp = await startMcpServer();
    gateway = await ChildGateway.start({ upstream: model.url, mcpUrl: mcp.url }, { MCP_INTERNAL_SECRET: SECRET });
  });

  afterAll(async () => {
    figure(
      `forged-markers: ${forgeries.length} forgeries, ${trusted.length} trusted, ${passedOn} logged and passed to the normal handler without the marker, ` +
        '0 reached the upstream or Trellis (MCP); a genuine marker is trusted (the control)',
    );
    await gateway?.stop();
    await Promise.all([model?.close(), mcp?.close()]);
  });

  async function send(headers: OutgoingHttpHeaders) {
    const [seenBefore, trellisBefore, callsBefore] = [model.requests.length, mcp.headers.length, mcp.calls.length];
    const exchange = await post(
      gateway.url,
      { model: 'mcp-marker', messages: [{ role: 'user', content: 'hi' }] },
      { headers },
    );
    return {
      exchange,
      upstream: model.requests.slice(seenBefore),
      trellis: mcp.headers.slice(trellisBefore),
      trellisCalls: mcp.calls.length - callsBefore,
    };
  }

  it.each(forgeries)(
    '%s: not trusted (logged), reaches neither the upstream nor Trellis, goes to the normal handler',
    async (name, headers) => {
      const { forgedMarkers } = await gateway.stats();
      const { exchange, upstream, trellis, trellisCalls } = await send(headers());
      expect(exchange.status).toBe(200);
      if ((await gateway.stats()).forgedMarkers !== forgedMarkers + 1) trusted.push(name);
      else passedOn++;
      expect((await gateway.stats()).forgedMarkers).toBe(forgedMarkers + 1);
      // Not the loop either: a marker that does not verify may be one of our own turns from another process.
      expect(JSON.parse(exchange.body).choices[0].message.content).toBe('the loop was skipped');
      expect(exchange.headers['x-agent-loop-stop']).toBeUndefined();
      expect(upstream.map((request) => request.headers['x-mcp-internal'])).toEqual([undefined]);
      expect(JSON.stringify(upstream.map((request) => request.headers))).not.toMatch(/v1\./);
      expect(trellisCalls).toBe(0);
      expect(JSON.stringify(trellis)).not.toMatch(/x-mcp-internal|v1\./i);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it('Connection naming the marker, with no marker: an outsider, the loop runs, nothing of it upstream or at Trellis', async () => {
    const { exchange, upstream, trellis, trellisCalls } = await send({ connection: 'X-MCP-Internal' });
    expect(JSON.parse(exchange.body).choices[0].message.content).toBe('the loop ran');
    expect(upstream.map((request) => request.headers['x-mcp-internal'])).toEqual([undefined, undefined]);
    expect(trellisCalls).toBe(1);
    expect(JSON.stringify(trellis)).not.toMatch(/x-mcp-internal|v1\./i);
  });

  it('a genuine marker (the control): trusted (not logged), skips the loop, and is removed before the upstream', async () => {
    const { forgedMarkers } = await gateway.stats();
    const { exchange, upstream } = await send({ 'x-mcp-internal': genuine() });
    expect((await gateway.stats()).forgedMarkers).toBe(forgedMarkers);
    expect(JSON.parse(exchange.body).choices[0].message.content).toBe('the loop was skipped');
    expect(exchange.headers['x-agent-loop-stop']).toBeUndefined();
    expect(upstream[0].headers['x-mcp-internal']).toBeUndefined();
  });
});
