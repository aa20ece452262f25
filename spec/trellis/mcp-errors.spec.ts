import http from 'node:http';
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { onLoopback, type OnLoopback } from '../../lib/testing/loopback';
import { isSessionLost, readableAt, trellisError } from '../../lib/trellis/mcp-errors';

const TARGET = 'http://tools.internal/mcp';

/** What the official client throws when it connects to `url`: the errors trellisError reads, as they really come. */
async function connectError(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const client = new Client({ name: 'mcp-errors.spec', version: '1' });
  return client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })).then(
    () => new Error('connected'),
    (error: unknown) => error,
  );
}

describe('trellisError and isSessionLost, on what the MCP client throws', () => {
  let server: OnLoopback;
  beforeAll(async () => {
    server = await onLoopback(
      http.createServer((req, res) => {
        req.resume();
        const status = Number(req.headers['x-status']);
        const body =
          req.headers['x-body'] === 'plain'
            ? 'upstream gateway\n  timed out'
            : JSON.stringify({
                jsonrpc: '2.0',
                id: null,
                error: { code: -32000, message: 'backend down:\n  Authorization: Bearer sk-live0123456789abcdefXYZ' },
              });
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      }),
    );
  });
  afterAll(() => server.close());

  it("says the HTTP status and the JSON-RPC error's message, on one line and without credentials", async () => {
    const error = await connectError(`${server.origin}/mcp`, { 'x-status': '500' });
    const readable = trellisError(error, TARGET);
    expect(readable.message).toBe(
      `Trellis at ${TARGET} answered HTTP 500 (backend down: Authorization: Bearer [redacted])`,
    );
    expect(readable.cause).toBe(error);
    expect(isSessionLost(error)).toBe(false);
  });

  it('says the body itself when it is not JSON-RPC', async () => {
    const error = await connectError(`${server.origin}/mcp`, { 'x-status': '502', 'x-body': 'plain' });
    expect(trellisError(error, TARGET).message).toBe(
      `Trellis at ${TARGET} answered HTTP 502 (upstream gateway timed out)`,
    );
  });

  it('takes a 404 for a session the server no longer knows', async () => {
    expect(isSessionLost(await connectError(`${server.origin}/mcp`, { 'x-status': '404' }))).toBe(true);
  });

  it('says the system error code of a server that is not there', async () => {
    const gone = await onLoopback(http.createServer());
    await gone.close();
    expect(trellisError(await connectError(`${gone.origin}/mcp`), TARGET).message).toBe(
      `Trellis unreachable at ${TARGET} (ECONNREFUSED)`,
    );
  });
});

describe('trellisError', () => {
  it('says a closed connection was lost', () => {
    expect(trellisError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), TARGET).message).toBe(
      `Trellis connection to ${TARGET} was lost`,
    );
  });

  it("says a protocol error's message on one line, cut at 160 characters", () => {
    expect(trellisError(new ProtocolError(-32603, 'tool table\n  corrupt'), TARGET).message).toBe(
      `Trellis at ${TARGET} failed: tool table corrupt`,
    );
    const long = trellisError(new ProtocolError(-32603, 'x'.repeat(400)), TARGET).message;
    expect(long).toBe(`Trellis at ${TARGET} failed: ${'x'.repeat(157)}...`);
  });

  it('adds the innermost cause where it says more', () => {
    const error = new Error('fetch failed', { cause: new Error('outer', { cause: new Error('bad port') }) });
    expect(trellisError(error, TARGET).message).toBe(`Trellis at ${TARGET} failed: fetch failed (bad port)`);
    expect(trellisError(new Error('spawn failed: bad port', { cause: new Error('bad port') }), TARGET).message).toBe(
      `Trellis at ${TARGET} failed: spawn failed: bad port`,
    );
  });

  it('finds a system code in the cause chain, passing over the SDK codes on the way', () => {
    const spawn = Object.assign(new Error('spawn notes-server ENOENT'), { code: 'ENOENT' });
    expect(
      trellisError(new SdkError(SdkErrorCode.ConnectionClosed, 'closed', undefined, { cause: spawn }), TARGET).message,
    ).toBe(`Trellis unreachable at ${TARGET} (ENOENT)`);
  });

  it('reads what is thrown that is no Error', () => {
    expect(trellisError('stdio server crashed', TARGET).message).toBe(
      `Trellis at ${TARGET} failed: stdio server crashed`,
    );
  });
});

describe('readableAt', () => {
  const readable = readableAt(TARGET);

  it('passes a result through, and a failure on as the trellis error naming the server, the original its cause', async () => {
    await expect(readable(Promise.resolve('listed'), undefined)).resolves.toBe('listed');
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const failed = await readable(Promise.reject(refused), new AbortController().signal).catch((error: Error) => error);
    expect(failed).toEqual(new Error(`Trellis unreachable at ${TARGET} (ECONNREFUSED)`));
    expect((failed as Error).cause).toBe(refused);
  });

  it("stops waiting when the caller's signal aborts, with the signal's own reason", async () => {
    const controller = new AbortController();
    const waiting = readable(new Promise(() => undefined), controller.signal);
    controller.abort(new Error('the loop ended'));
    await expect(waiting).rejects.toThrow('the loop ended');
  });
});
