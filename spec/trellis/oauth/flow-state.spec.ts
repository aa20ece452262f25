import { randomBytes } from 'node:crypto';
import { newNonce, sealFlow, takeFlow, type Flow } from '../../../lib/trellis/oauth/flow-state';
import { MemoryStore } from '../../../lib/store/memory-store';

const key = randomBytes(32);
const flow = (): Flow => ({
  server: 'notes',
  user: 'u1',
  verifier: 'v'.repeat(43),
  authorizationServerUrl: 'https://auth.example.com/',
  tokenEndpoint: 'https://auth.example.com/token',
  client: { client_id: 'c1' },
  nonce: newNonce(),
});

describe('the sealed state of a sign-in', () => {
  afterEach(() => jest.useRealTimers());

  it('opens once, on any replica with the same secret: a replay is refused', async () => {
    const sealed = sealFlow(key, flow());
    const store = new MemoryStore();
    expect(await takeFlow(key, sealed, store)).toEqual({
      flow: expect.objectContaining({ server: 'notes', user: 'u1' }),
    });
    expect(await takeFlow(key, sealed, store)).toEqual({ failed: 'replayed' });
  });

  it('carries the verifier unreadably', () => {
    const { verifier } = flow();
    expect(sealFlow(key, flow())).not.toContain(verifier);
    expect(Buffer.from(sealFlow(key, flow()).split('.')[1], 'base64url').toString('latin1')).not.toContain('vvvv');
  });

  it('is refused when forged, sealed under another secret, or expired', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryStore();
    expect(await takeFlow(key, 'x'.repeat(60), store)).toEqual({ failed: 'invalid' });
    expect(await takeFlow(key, sealFlow(randomBytes(32), flow()), store)).toEqual({ failed: 'invalid' });
    const sealed = sealFlow(key, flow());
    jest.setSystemTime(1_000_000 + 10 * 60 * 1000 + 1);
    expect(await takeFlow(key, sealed, store)).toEqual({ failed: 'expired' });
  });
});
