import { AnswerIds } from '../../lib/hand-back/answer-ids';

describe("the upstream's id behind each of the loop's answer ids", () => {
  it("gives the upstream's last id for a loop's answer id, any other id as it is", () => {
    const ids = new AnswerIds();
    ids.remember('resp_loop1', 'resp_up1');
    ids.remember('resp_loop1', 'resp_up2');
    expect(ids.upstreamOf('resp_loop1')).toBe('resp_up2');
    expect(ids.upstreamOf('resp_up1')).toBe('resp_up1');
  });

  it("gives back the loop's answer id for its upstream reply (what the client chained on), any other id as it is", () => {
    const ids = new AnswerIds();
    ids.remember('resp_loop1', 'resp_up1');
    ids.remember('resp_loop1', 'resp_up2');
    expect(ids.answerOf('resp_up2')).toBe('resp_loop1');
    expect(ids.answerOf('resp_up1')).toBe('resp_up1');
    expect(ids.answerOf('resp_other')).toBe('resp_other');
  });

  it('remembers nothing for a reply without an id', () => {
    const ids = new AnswerIds();
    ids.remember('resp_loop1', '');
    expect(ids.upstreamOf('resp_loop1')).toBe('resp_loop1');
  });

  it('forgets the oldest first past 100 000 answers', () => {
    const ids = new AnswerIds();
    for (let i = 0; i <= 100_000; i++) ids.remember(`resp_loop${i}`, `resp_up${i}`);
    expect(ids.upstreamOf('resp_loop0')).toBe('resp_loop0');
    expect(ids.upstreamOf('resp_loop1')).toBe('resp_up1');
    expect(ids.upstreamOf('resp_loop100000')).toBe('resp_up100000');
    expect([ids.answerOf('resp_up0'), ids.answerOf('resp_up1')]).toEqual(['resp_up0', 'resp_loop1']);
  });
});
