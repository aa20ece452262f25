import { EventLoopSlices, SLICE_MS } from '../../lib/tool-search/event-loop-slices';

describe('EventLoopSlices', () => {
  let now = 0;
  beforeEach(() => {
    now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  /** whether a callback queued on the event loop before `between` ran by the time it resolved */
  async function handsBack(slices: EventLoopSlices): Promise<boolean> {
    let ran = false;
    setImmediate(() => (ran = true));
    await slices.between();
    return ran;
  }

  it('hands the event loop back once a slice has run longer than SLICE_MS, and starts a new slice', async () => {
    const slices = new EventLoopSlices();
    now = SLICE_MS;
    expect(await handsBack(slices)).toBe(false);
    now = SLICE_MS + 1;
    expect(await handsBack(slices)).toBe(true);
    expect(await handsBack(slices)).toBe(false);
    now = 2 * SLICE_MS + 2;
    expect(await handsBack(slices)).toBe(true);
  });
});
