import { MemoryStore } from '../../lib/store/memory-store';
import { storeContract } from '../helpers/store-contract';

describe('MemoryStore (one process, the default)', () => {
  storeContract(async () => new MemoryStore());

  it('is always reachable, so it never calls an onReachable listener, and describes itself as memory', async () => {
    const store = new MemoryStore();
    const listener = jest.fn();
    store.onReachable(listener)();
    await new Promise((resolve) => setImmediate(resolve));
    expect(listener).not.toHaveBeenCalled();
    expect(store.unreachable).toBeUndefined();
    expect(store.description).toBe('memory');
  });
});
