/* eslint-disable @typescript-eslint/no-require-imports -- modules loaded afresh with a peer made missing */
import type { Request } from 'express';
import request from 'supertest';
import type * as Gateway from '../../lib/gateway/gateway';
import type * as Middleware from '../../lib/middleware';
import type * as Tracing from '../../lib/telemetry/tracing';
import { createTracing } from '../../lib/telemetry/tracing';
import { memoryLogger } from '../helpers/memory-logger';

const quiet = memoryLogger('error').logger;

function without<T>(peer: string, load: () => T): T {
  let loaded: T | undefined;
  jest.isolateModules(() => {
    jest.doMock(peer, () => {
      throw new Error(`Cannot find module '${peer}'`);
    });
    loaded = load();
  });
  return loaded as T;
}

describe('optional peers', () => {
  afterEach(() => jest.dontMock('@opentelemetry/api').dontMock('prom-client'));

  it('traces nothing without @opentelemetry/api', () => {
    const tracing = without('@opentelemetry/api', () =>
      (require('../../lib/telemetry/tracing') as typeof Tracing).createTracing(),
    );
    expect(tracing).toBeUndefined();
  });

  it('makes no span and no turn spans with the API but no SDK registered', () => {
    const req = {
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    } as unknown as Request;
    expect(createTracing()?.startLoop(req, 'notes', 'agent-1', 'id', 'chat')).toBeUndefined();
  });

  it('refuses metrics without prom-client, naming the package; createGateway then serves no /metrics', async () => {
    const { agentLoop } = without('prom-client', () => require('../../lib/middleware') as typeof Middleware);
    expect(() => agentLoop({ metrics: {}, logger: quiet })).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_MISSING_PEER',
        message:
          "agentLoop: option 'metrics' needs the prom-client package, which is not installed: run npm install prom-client, or leave 'metrics' out.",
      }),
    );
    const { createGateway } = without('prom-client', () => require('../../lib/gateway/gateway') as typeof Gateway);
    const app = createGateway({ upstream: { url: 'http://127.0.0.1:9/v1' }, logger: quiet });
    await request(app).get('/metrics').expect(404);
  });
});
