import { sharedToolList } from '../../lib/trellis/tool-list';
import type { Tool } from '../../lib/types';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });

/** A listing the test settles by hand, counting how often it was asked. */
function heldListing() {
  const pending: Array<(tools: Tool[]) => void> = [];
  const list = jest.fn(() => new Promise<Tool[]>((resolve) => pending.push(resolve)));
  return { list, settle: (tools: Tool[]) => pending.shift()!(tools) };
}

describe('sharedToolList', () => {
  afterEach(() => jest.useRealTimers());

  it('lets concurrent listings share one list() and keeps its tools until the ttl runs out', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const { list, settle } = heldListing();
    const shared = sharedToolList(1000, list);
    const first = shared.listing();
    const second = shared.listing();
    settle([tool('a')]);
    expect(await first).toEqual([tool('a')]);
    expect(await second).toEqual([tool('a')]);
    expect(list).toHaveBeenCalledTimes(1);
    expect(shared.fresh()).toEqual([tool('a')]);
    jest.advanceTimersByTime(1001);
    expect(shared.fresh()).toBeUndefined();
  });

  it('does not keep a list the server changed while it was being listed, and lists anew after a change', async () => {
    const { list, settle } = heldListing();
    const shared = sharedToolList(60_000, list);
    const listing = shared.listing();
    shared.changed();
    settle([tool('old')]);
    expect(await listing).toEqual([tool('old')]);
    expect(shared.fresh()).toBeUndefined();
    const again = shared.listing();
    settle([tool('new')]);
    expect(await again).toEqual([tool('new')]);
    expect(shared.fresh()).toEqual([tool('new')]);
    expect(list).toHaveBeenCalledTimes(2);
  });

  it('starts a new listing after one failed', async () => {
    const list = jest
      .fn<Promise<Tool[]>, []>()
      .mockRejectedValueOnce(new Error('down'))
      .mockResolvedValue([tool('b')]);
    const shared = sharedToolList(60_000, list);
    await expect(shared.listing()).rejects.toThrow('down');
    await expect(shared.listing()).resolves.toEqual([tool('b')]);
  });
});
