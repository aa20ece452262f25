import { AgentLoopError } from '../../lib';
import { checked } from '../../lib/admin/options';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';

const KEY = 'library-admin-key-0123456789';
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe('loop.admin() options', () => {
  const { loop } = buildGateway('http://127.0.0.1:9/v1', { trellis, bindings });
  afterAll(() => loop.close());

  it.each([
    [
      undefined,
      'ERR_AGENT_LOOP_NO_ADMIN_KEY',
      "loop.admin: option 'key' is missing; give the admin key, at least 16 characters, e.g. loop.admin({ key: process.env.AGENT_LOOP_ADMIN_KEY }) (openssl rand -hex 32 makes one), or loop.admin({ auth: false }) when your own middleware in front authenticates.",
    ],
    [
      { key: 'short-secret' },
      'ERR_AGENT_LOOP_NO_ADMIN_KEY',
      "loop.admin: option 'key' is a string of 12 characters (not shown); give the admin key",
    ],
    [{ key: process.env.UNSET_ADMIN_KEY }, 'ERR_AGENT_LOOP_NO_ADMIN_KEY', "loop.admin: option 'key' is missing;"],
    [
      { auth: true },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "loop.admin: option 'auth' is true; only auth: false is an option (it turns authentication off)",
    ],
    [
      { auth: false, key: KEY },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'loop.admin: give either key or auth: false, not both',
    ],
    [
      { kee: KEY },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "loop.admin: unknown option 'kee'. Did you mean `key`? Known options here: key, auth.",
    ],
  ])('refuses %j with %s, never showing the key', (options, code, message) => {
    let thrown: unknown;
    try {
      loop.admin(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentLoopError);
    expect(thrown).toEqual(expect.objectContaining({ code, message: expect.stringContaining(message) }));
    expect((thrown as Error).message).not.toContain('short-secret');
  });
});

describe('the admin options, checked', () => {
  it('take a key of at least 16 characters, or auth: false', () => {
    expect(checked({ key: 'k'.repeat(16) })).toEqual({ key: 'k'.repeat(16) });
    expect(checked({ auth: false })).toEqual({ auth: false });
  });

  it.each([null, 'a-key-as-a-string', 42])('read %j as options without a key', (options) => {
    expect(() => checked(options)).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_NO_ADMIN_KEY',
        message: expect.stringContaining("loop.admin: option 'key' is missing;"),
      }),
    );
  });

  it('say what a key that is no string is, without showing it', () => {
    expect(() => checked({ key: 1234567890123456 })).toThrow("loop.admin: option 'key' is a number (not shown);");
    expect(() => checked({ key: null })).toThrow("loop.admin: option 'key' is a null (not shown);");
  });
});
