import { HeldBytes, replyTooLong } from '../../lib/shared/held-bytes';

describe('what a streamed turn holds', () => {
  it('takes up to maxBytes, counting UTF-8 bytes; one more fails the turn', () => {
    const held = new HeldBytes(10);
    held.addText('€€€');
    held.add(1);
    expect(() => held.addText('é')).toThrow(replyTooLong(10).message);
  });

  it('holds anything without a bound', () => {
    expect(() => new HeldBytes().add(Number.MAX_SAFE_INTEGER)).not.toThrow();
  });
});
