import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { agentLoop } from '../../lib';
import {
  isInternalRequest,
  markerTrust,
  markerVerdict,
  removeMarker,
  signMarker,
  skipWhenInternal,
} from '../../lib/self-call/marker';
import { sign, tokenSecret } from '../../lib/shared/signed-token';
import { localTrellis } from '../../lib/trellis/local';
import { expressVersions } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';

const secret = 'a gateway secret that is long enough!';
const key = tokenSecret(secret);
/** The Express app the requests below came to (only its mount chain is read), served by an agentLoop under `key`. */
const app = {};
markerTrust(key)({ app } as unknown as IncomingMessage);
/** A request as Node parses one: `headers`, and `rawHeaders` as the lines came (name, value, name, value...). */
const requestWith = (marker?: string | string[], to: object = app) =>
  ({
    app: to,
    headers: { host: 'front.door', ...(marker === undefined ? {} : { 'x-mcp-internal': marker }) },
    rawHeaders: [
      'Host',
      'front.door',
      ...[marker ?? []].flat().flatMap((value) => ['X-MCP-Internal', value]),
      'Content-Type',
      'application/json',
    ],
  }) as unknown as IncomingMessage;

/** The marker with one byte of its loop id changed. */
const tampered = (marker: string) => {
  const [expiry, box] = marker.split('.');
  const bytes = Buffer.from(box, 'base64url');
  bytes[1] ^= 1;
  return `${expiry}.${bytes.toString('base64url')}`;
};
/** A marker as earlier versions signed it, under the secret itself. */
const formerMarker = (loopId: string, expiresAt: number) => {
  const payload = `v1.${loopId}.${expiresAt}`;
  return `${payload}.${crypto.createHmac('sha256', key).update(payload).digest('base64url')}`;
};

describe('the X-MCP-Internal marker', () => {
  it('verifies a marker signed under a registered secret, and only asks: the request keeps its header', () => {
    const req = requestWith(signMarker(key, 'abc', Date.now() + 10_000));
    const before = structuredClone({ headers: req.headers, rawHeaders: req.rawHeaders });
    expect(isInternalRequest(req)).toBe(true);
    expect(markerVerdict(req, key)).toBe('internal');
    expect({ headers: req.headers, rawHeaders: req.rawHeaders }).toEqual(before);
  });

  it('removes the marker from headers and every marker line from rawHeaders, forged ones included; the verdict stays', () => {
    const genuine = signMarker(key, 'abc', Date.now() + 10_000);
    const req = requestWith(genuine);
    removeMarker(req);
    expect(req.headers['x-mcp-internal']).toBeUndefined();
    expect(req.rawHeaders).toEqual(['Host', 'front.door', 'Content-Type', 'application/json']);
    expect(isInternalRequest(req)).toBe(true);
    const twoLines = requestWith(['forged', genuine]);
    removeMarker(twoLines);
    expect(twoLines.rawHeaders).toEqual(['Host', 'front.door', 'Content-Type', 'application/json']);
    expect(isInternalRequest(twoLines)).toBe(false);
  });

  it("trusts a marker under one agentLoop's key only for that one, whatever another verified first", () => {
    const mine = tokenSecret('the secret of one agentLoop, long enough!!');
    const theirs = tokenSecret('the secret of another agentLoop, long enough');
    const expiresAt = Date.now() + 10_000;
    const req = requestWith(signMarker(theirs, 'their-loop', expiresAt));
    expect(markerVerdict(req, theirs)).toBe('internal');
    expect(markerVerdict(req, mine)).toBe('forged');
    const again = requestWith(signMarker(theirs, 'their-loop', expiresAt));
    expect(markerVerdict(again, mine)).toBe('forged');
    expect(markerVerdict(requestWith(), mine)).toBe('external');
  });

  it('trusts a marker in isInternalRequest only for an agentLoop serving the same app: its own, a sub-app, the app it is mounted in', () => {
    const other = tokenSecret('the secret of an agentLoop of another app, long enough');
    const root = {};
    const sub = { parent: root };
    const otherApp = {};
    markerTrust(key)(requestWith(undefined, sub));
    markerTrust(other)(requestWith(undefined, otherApp));
    const ours = signMarker(key, 'ours', Date.now() + 10_000);
    const theirs = signMarker(other, 'theirs', Date.now() + 10_000);
    expect([root, sub, { parent: sub }].map((to) => isInternalRequest(requestWith(ours, to)))).toEqual([
      true,
      true,
      true,
    ]);
    expect([root, sub, app, {}].map((to) => isInternalRequest(requestWith(theirs, to)))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(isInternalRequest(requestWith(theirs, otherApp))).toBe(true);
    expect(
      isInternalRequest({ headers: { 'x-mcp-internal': ours }, rawHeaders: [] } as unknown as IncomingMessage),
    ).toBe(false);
  });

  it("trusts the marker of an agentLoop that has served no request yet in any app (another worker's turn), until it serves one", () => {
    const shared = tokenSecret('a secret the workers of a cluster share, long enough');
    const servesApp = markerTrust(shared);
    const marker = signMarker(shared, 'a turn from another worker', Date.now() + 10_000);
    expect(isInternalRequest(requestWith(marker, {}))).toBe(true);
    servesApp(requestWith(undefined, app));
    expect([app, {}].map((to) => isInternalRequest(requestWith(marker, to)))).toEqual([true, false]);
  });

  it.each([
    ['expired', signMarker(key, 'abc', Date.now() - 1)],
    ['tampered', tampered(signMarker(key, 'abc', Date.now() + 10_000))],
    ['of the former format (v1.<loop id>.<expiry>.<hmac>)', formerMarker('abc', Date.now() + 10_000)],
    ['empty', ''],
    ['oversized', `${signMarker(key, 'abc'.repeat(70), Date.now() + 10_000)}`],
    ['under a secret nobody registered', signMarker(Buffer.from('x'.repeat(40)), 'abc', Date.now() + 10_000)],
  ])('rejects a marker that is %s', (_case, marker) => {
    expect(isInternalRequest(requestWith(marker))).toBe(false);
  });

  it('recognises a marker this process signed on every turn without an HMAC, until it expires', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const hmacs = jest.spyOn(crypto, 'createHmac');
    try {
      const marker = signMarker(key, 'turns', Date.now() + 10_000);
      hmacs.mockClear();
      expect([1, 2, 3, 4].map(() => isInternalRequest(requestWith(marker)))).toEqual([true, true, true, true]);
      expect(hmacs).not.toHaveBeenCalled();
      jest.setSystemTime(Date.now() + 10_000);
      expect(isInternalRequest(requestWith(marker))).toBe(false);
    } finally {
      hmacs.mockRestore();
      jest.useRealTimers();
    }
  });

  it("verifies a marker another process signed (a cluster's shared secret) once: its later turns need no other HMAC", () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const hmacs = jest.spyOn(crypto, 'createHmac');
    try {
      // what signMarker writes in a process sharing the secret: the same bytes, not signed in this one
      const marker = sign(key, { kind: 'marker' }, 'elsewhere', Date.now() + 10_000);
      hmacs.mockClear();
      expect(isInternalRequest(requestWith(marker))).toBe(true);
      const firstTurn = hmacs.mock.calls.length;
      expect(firstTurn).toBeGreaterThan(0);
      expect([2, 3, 4].map(() => isInternalRequest(requestWith(marker)))).toEqual([true, true, true]);
      expect(hmacs).toHaveBeenCalledTimes(firstTurn);
      jest.setSystemTime(Date.now() + 10_000);
      expect(isInternalRequest(requestWith(marker))).toBe(false);
    } finally {
      hmacs.mockRestore();
      jest.useRealTimers();
    }
  });

  it('lets skipWhenInternal run the wrapped injector only for outside requests, taking the marker off every one', () => {
    const seen: unknown[] = [];
    const injector = jest.fn(
      (req: Request, _res: Response, next: NextFunction) => (seen.push(req.headers['x-mcp-internal']), next()),
    );
    const wrapped = skipWhenInternal(injector);
    const next = jest.fn();
    const requests = [requestWith(signMarker(key, 'l', Date.now() + 10_000)), requestWith('forged'), requestWith()];
    for (const req of requests) wrapped(req as Request, {} as Response, next);
    expect(injector).toHaveBeenCalledTimes(2);
    expect(next).toHaveBeenCalledTimes(3);
    expect(seen).toEqual([undefined, undefined]);
    expect(requests.map((req) => req.rawHeaders)).toEqual(
      requests.map(() => ['Host', 'front.door', 'Content-Type', 'application/json']),
    );
  });
});

describe.each(expressVersions)('markers and the Express apps of one process (%s)', (_version, express) => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer((body) =>
      body.messages.some((message) => message.role === 'tool')
        ? { content: 'It is 08:00 UTC.' }
        : { toolCalls: [{ name: 'clock_now' }] },
    );
  });
  afterEach(() => model.close());

  const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
  const ask = (model: string) => ({ model, messages: [{ role: 'user', content: 'what time is it?' }] });
  const proxy = () => createProxyMiddleware({ target: new URL(model.url).origin, on: { proxyReq: fixRequestBody } });

  /** An app as a user builds one: a spy keeping the markers that come in, a guardrail in skipWhenInternal, agentLoop. */
  function guardedApp(internalSecret: string) {
    const { logger, lines } = memoryLogger('debug');
    const markers: string[] = [];
    const guarded: unknown[] = [];
    const front = express();
    front.use(express.json());
    front.use(function spy(req, _res, next) {
      const marker = req.headers['x-mcp-internal'];
      if (typeof marker === 'string') markers.push(marker);
      next();
    });
    front.use(skipWhenInternal((req, _res, next) => (guarded.push(req.body.model), next())));
    front.use(
      agentLoop({
        trellis,
        bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
        logger,
        internalSecret,
      }),
    );
    return { front, markers, guarded, lines };
  }

  it("skips the turns of every agentLoop serving the app, a sub-app's too, and of no other app", async () => {
    const ours = guardedApp('the secret of the first app, long enough!!');
    const sub = express();
    sub.use(
      agentLoop({
        trellis,
        bindings: [{ name: 'sub', match: { model: 'sub-agent' }, hierarchy: 'clock_now' }],
        logger: memoryLogger('warn').logger,
        internalSecret: 'the sub-app agentLoop of the first app, long',
      }),
    );
    sub.post('/v1/chat/completions', proxy());
    ours.front.use(sub);
    const theirs = guardedApp('the secret of the second app, long enough!');
    theirs.front.post('/v1/chat/completions', proxy());

    for (const model of ['agent', 'sub-agent']) {
      const res = await request(ours.front).post('/v1/chat/completions').send(ask(model)).expect(200);
      expect([res.body.choices[0].message.content, res.headers['x-agent-loop-turns']]).toEqual([
        'It is 08:00 UTC.',
        '2',
      ]);
    }
    expect(ours.markers).toHaveLength(4);
    expect(ours.guarded).toEqual(['agent', 'sub-agent']);
    expect(ours.lines.map((line) => String(line.message)).filter((message) => message.includes('another'))).toEqual([
      "agent-loop passed on another agentLoop's turn",
      "agent-loop passed on another agentLoop's turn",
    ]);

    // The first app's genuine marker, sent to the second app: its guardrail runs, and its agentLoop takes it for a forgery.
    const res = await request(theirs.front)
      .post('/v1/chat/completions')
      .set('x-mcp-internal', ours.markers[0])
      .send(ask('agent'))
      .expect(200);
    expect(res.headers['x-agent-loop-turns']).toBeUndefined();
    expect(theirs.guarded).toEqual(['agent']);
    expect(model.requests.at(-1)?.body.tools).toBeUndefined();
    expect(theirs.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message:
          'agent-loop ignored an X-MCP-Internal marker that does not verify; the request goes to the normal handler without the loop',
      }),
    ]);
  });
});
