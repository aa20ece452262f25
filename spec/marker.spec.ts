import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { isInternalRequest, markerVerdict, removeMarker, signMarker, skipWhenInternal } from '../lib/marker';
import { tokenSecret } from '../lib/signed-token';

const secret = 'a gateway secret that is long enough!';
const key = tokenSecret(secret);
/** A request as Node parses one: `headers`, and `rawHeaders` as the lines came (name, value, name, value...). */
const requestWith = (marker?: string | string[]) =>
  ({
    headers: { host: 'front.door', ...(marker === undefined ? {} : { 'x-mcp-internal': marker }) },
    rawHeaders: ['Host', 'front.door', ...[marker ?? []].flat().flatMap((value) => ['X-MCP-Internal', value]), 'Content-Type', 'application/json'],
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
    expect(isInternalRequest(req)).toBe(true);
    const again = requestWith(signMarker(theirs, 'their-loop', expiresAt));
    expect(markerVerdict(again, mine)).toBe('forged');
    expect(markerVerdict(requestWith(), mine)).toBe('external');
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

  it("verifies a loop's marker once: its later turns are recognised without another HMAC, until it expires", () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const marker = signMarker(key, 'turns', Date.now() + 10_000);
      const hmacs = jest.spyOn(crypto, 'createHmac');
      expect(isInternalRequest(requestWith(marker))).toBe(true);
      const firstTurn = hmacs.mock.calls.length;
      const laterTurns = [2, 3, 4].map(() => isInternalRequest(requestWith(marker)));
      expect(laterTurns).toEqual([true, true, true]);
      expect(firstTurn).toBeGreaterThan(0);
      expect(hmacs).toHaveBeenCalledTimes(firstTurn);
      jest.setSystemTime(Date.now() + 10_000);
      expect(isInternalRequest(requestWith(marker))).toBe(false);
      hmacs.mockRestore();
    } finally {
      jest.useRealTimers();
    }
  });

  it('lets skipWhenInternal run the wrapped injector only for outside requests, taking the marker off every one', () => {
    const seen: unknown[] = [];
    const injector = jest.fn((req: Request, _res: Response, next: NextFunction) => (seen.push(req.headers['x-mcp-internal']), next()));
    const wrapped = skipWhenInternal(injector);
    const next = jest.fn();
    const requests = [requestWith(signMarker(key, 'l', Date.now() + 10_000)), requestWith('forged'), requestWith()];
    for (const req of requests) wrapped(req as Request, {} as Response, next);
    expect(injector).toHaveBeenCalledTimes(2);
    expect(next).toHaveBeenCalledTimes(3);
    expect(seen).toEqual([undefined, undefined]);
    expect(requests.map((req) => req.rawHeaders)).toEqual(requests.map(() => ['Host', 'front.door', 'Content-Type', 'application/json']));
  });
});
