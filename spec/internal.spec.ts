import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { isInternalRequest, markerKey, signMarker, skipWhenInternal } from '../lib/internal';

const secret = 'a gateway secret that is long enough!';
const key = markerKey(secret);
const requestWith = (marker?: string | string[]) => ({ headers: marker === undefined ? {} : { 'x-mcp-internal': marker } }) as unknown as IncomingMessage;

describe('the X-MCP-Internal marker', () => {
  it('verifies a marker signed under a registered secret and removes the header', () => {
    const req = requestWith(signMarker(key, 'abc', 2, Date.now() + 10_000));
    expect(isInternalRequest(req)).toBe(true);
    expect(req.headers['x-mcp-internal']).toBeUndefined();
    expect(isInternalRequest(req)).toBe(true);
  });

  it.each([
    ['expired', signMarker(key, 'abc', 1, Date.now() - 1)],
    ['tampered turn', signMarker(key, 'abc', 1, Date.now() + 10_000).replace('.1.', '.9.')],
    ['wrong version', signMarker(key, 'abc', 1, Date.now() + 10_000).replace('v1.', 'v2.')],
    ['empty', ''],
    ['oversized', 'v1.' + 'x'.repeat(500)],
    ['under a secret nobody registered', signMarker(Buffer.from('x'.repeat(40)), 'abc', 1, Date.now() + 10_000)],
  ])('rejects a marker that is %s', (_case, marker) => {
    const req = requestWith(marker);
    expect(isInternalRequest(req)).toBe(false);
    expect(req.headers['x-mcp-internal']).toBeUndefined();
  });

  it('lets skipWhenInternal run the wrapped injector only for outside requests', () => {
    const injector = jest.fn((_req: Request, _res: Response, next: NextFunction) => next());
    const wrapped = skipWhenInternal(injector);
    const next = jest.fn();
    wrapped(requestWith(signMarker(key, 'l', 1, Date.now() + 10_000)) as Request, {} as Response, next);
    wrapped(requestWith('forged') as Request, {} as Response, next);
    wrapped(requestWith() as Request, {} as Response, next);
    expect(injector).toHaveBeenCalledTimes(2);
    expect(next).toHaveBeenCalledTimes(3);
  });
});
