/* eslint-disable @typescript-eslint/no-require-imports -- the module loaded afresh with ioredis made missing */
import Joi from 'joi';
import { validator } from '../../lib/options/declaration';
import type * as Options from '../../lib/store/options';
import { openStore, storeOption } from '../../lib/store/options';
import { MemoryStore } from '../../lib/store/memory-store';
import { RedisStore } from '../../lib/store/redis-store';
import { memoryLogger } from '../helpers/memory-logger';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/store-contract';

const { logger } = memoryLogger('error');
const validate = validator<{ store?: Options.StoreOption }>('agentLoop', Joi.object({ store: storeOption.schema }), {
  store: storeOption,
});

describe('the store option', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('opens this process memory without the option', () => {
    expect(openStore(undefined, logger)).toBeInstanceOf(MemoryStore);
  });

  it("opens Redis at the option's url, keys under the default prefix agent-loop:", async () => {
    const store = openStore({ url: redis.url }, logger);
    expect(store).toBeInstanceOf(RedisStore);
    await until(() => store.unreachable === undefined);
    await store.set('k', 'v');
    const other = openStore({ url: redis.url, prefix: 'agent-loop:k' }, logger);
    await until(() => other.unreachable === undefined);
    expect(await other.get('')).toBe('v');
    await Promise.all([store.close(), other.close()]);
  });

  it.each([
    [
      { url: 'http://127.0.0.1:6379' },
      "agentLoop: option 'store.url' is \"http://127.0.0.1:6379\"; must be a valid uri with a scheme matching the redis|rediss pattern; it must be { url: 'redis://host:6379/0', prefix?: 'agent-loop:' } (rediss:// for TLS; a password in the URL is never shown), e.g. store: { url: 'redis://127.0.0.1:6379' }.",
    ],
    [
      { url: 'redis://:hunter2-secret@10.0.0.1:6379', prefix: 7 },
      "agentLoop: option 'store.prefix' is 7; must be a string; it must be { url: 'redis://host:6379/0', prefix?: 'agent-loop:' } (rediss:// for TLS; a password in the URL is never shown), e.g. store: { url: 'redis://127.0.0.1:6379' }.",
    ],
    [
      { url: 'rediss://:hunter2-secret@10.0.0.1:6379/x y' },
      "agentLoop: option 'store.url' is \"rediss://[redacted]@10.0.0.1:6379/x y\"; must be a valid uri with a scheme matching the redis|rediss pattern; it must be { url: 'redis://host:6379/0', prefix?: 'agent-loop:' } (rediss:// for TLS; a password in the URL is never shown), e.g. store: { url: 'redis://127.0.0.1:6379' }.",
    ],
  ])('refuses %j naming the option and the fix, never the password', (store, message) => {
    expect(() => validate({ store })).toThrow(
      expect.objectContaining({ code: 'ERR_AGENT_LOOP_INVALID_OPTION', message }),
    );
  });

  it('refuses a store without ioredis installed, naming the package', () => {
    let open: typeof openStore | undefined;
    jest.isolateModules(() => {
      jest.doMock('ioredis', () => {
        throw new Error("Cannot find module 'ioredis'");
      });
      open = (require('../../lib/store/options') as typeof Options).openStore;
    });
    expect(() => open!({ url: 'redis://127.0.0.1:6379' }, logger)).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_MISSING_PEER',
        message:
          "agentLoop: option 'store' needs the ioredis package, which is not installed: run npm install ioredis, or leave 'store' out.",
      }),
    );
    jest.dontMock('ioredis');
  });
});
