import { AgentLoopError } from '../../lib';
import { adminConfigSchema, adminKeyOf } from '../../lib/admin/gateway-admin';
import { createGateway } from '../../lib/gateway/gateway';

const KEY = 'admin-key-0123456789abcdef';

describe("the gateway config's admin", () => {
  afterEach(() => {
    delete process.env.TEST_GATEWAY_ADMIN_KEY;
    delete process.env.TEST_ADMIN_KEY_SHORT;
  });

  it('refuses to start when the key variable it names is unset or short', () => {
    const config = { upstream: { url: 'http://127.0.0.1:9/v1' }, bindings: [] };
    expect(() => createGateway({ ...config, admin: { keyEnv: 'TEST_ADMIN_KEY_UNSET' } })).toThrow(
      new AgentLoopError(
        'ERR_AGENT_LOOP_NO_ADMIN_KEY',
        "createGateway: option 'admin.keyEnv' names TEST_ADMIN_KEY_UNSET, which is not set; set it to the admin key (at least 16 characters, e.g. export TEST_ADMIN_KEY_UNSET=$(openssl rand -hex 32)), or remove 'admin' to serve no admin routes.",
      ),
    );
    process.env.TEST_ADMIN_KEY_SHORT = 'short';
    expect(() => createGateway({ ...config, admin: { keyEnv: 'TEST_ADMIN_KEY_SHORT' } })).toThrow(
      'which is only 5 characters long',
    );
    expect(() => createGateway({ ...config, admin: { key: KEY } as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_UNKNOWN_OPTION',
        message: expect.stringContaining("unknown option 'admin.key'. Did you mean `keyEnv`?"),
      }),
    );
  });

  it('serves no admin routes without admin', () => {
    expect(adminKeyOf(undefined)).toBeUndefined();
  });

  it('reads the key from the variable it names, at least 16 characters', () => {
    process.env.TEST_GATEWAY_ADMIN_KEY = 'k'.repeat(16);
    expect(adminKeyOf({ keyEnv: 'TEST_GATEWAY_ADMIN_KEY' })).toBe('k'.repeat(16));
    process.env.TEST_GATEWAY_ADMIN_KEY = 'k'.repeat(15);
    expect(() => adminKeyOf({ keyEnv: 'TEST_GATEWAY_ADMIN_KEY' })).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_NO_ADMIN_KEY',
        message: expect.stringContaining('names TEST_GATEWAY_ADMIN_KEY, which is only 15 characters long;'),
      }),
    );
  });

  it.each([
    [{ keyEnv: 'AGENT_LOOP_ADMIN_KEY' }, undefined],
    [{ keyEnv: '_KEY_2' }, undefined],
    [{ keyEnv: '2KEY' }, '"keyEnv" with value "2KEY" fails to match the required pattern: /^[A-Za-z_][A-Za-z0-9_]*$/'],
    [
      { keyEnv: 'ADMIN-KEY' },
      '"keyEnv" with value "ADMIN-KEY" fails to match the required pattern: /^[A-Za-z_][A-Za-z0-9_]*$/',
    ],
    [{}, '"keyEnv" is required'],
  ])('takes %j for an environment variable name: %s', (admin, problem) => {
    expect(adminConfigSchema.validate(admin).error?.message).toBe(problem);
  });
});
