import express from 'express';
import request from 'supertest';
import { adminOf, closed, readiness } from '../../lib/middleware/methods';
import { assemble, type Parts } from '../../lib/middleware/parts';
import { configOf } from '../../lib/options/agent-loop';
import { localTrellis } from '../../lib/trellis/local';
import { memoryLogger } from '../helpers/memory-logger';

const KEY = 'library-admin-key-0123456789';
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe("the middleware's admin(), ready() and close()", () => {
  let parts: Parts;
  beforeEach(() => {
    parts = assemble(configOf({ trellis, bindings, logger: memoryLogger('error').logger }));
  });
  afterEach(() => closed(parts, 0));

  it('is ready once the binding listed its tools, and says it is shutting down once closed', async () => {
    await expect(readiness(parts)).resolves.toEqual({});
    await closed(parts, 0);
    await expect(readiness(parts)).resolves.toEqual({ 'agent-loop': 'shutting down' });
  });

  it('serves the admin API behind its key, and records loops from the first admin() on', async () => {
    expect(parts.admin.records).toBeUndefined();
    const app = express().use('/admin', adminOf(parts, { key: KEY }));
    expect(parts.admin.records).toBeDefined();
    expect(adminOf(parts, { key: KEY }) && parts.admin.records).toBe(parts.admin.records);
    expect((await request(app).get('/admin/api/loops')).status).toBe(401);
    const loops = await request(app).get('/admin/api/loops').set('authorization', `Bearer ${KEY}`).expect(200);
    expect(loops.body.recent).toEqual([]);
  });
});
