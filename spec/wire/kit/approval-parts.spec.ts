import { allAsking, answerBeside, lastIn, withoutAnswers, type PartsShape } from '../../../lib/wire/kit/approval-parts';

interface Item {
  role: string;
  parts: string[];
}

const shape: PartsShape<Item, string> = {
  partsOf: (item) => item?.parts ?? [],
  withParts: (item, parts) => (item ? { ...item, parts } : { role: 'user', parts }),
  roleOf: (item) => item.role,
  user: 'user',
};
const isAnswer = (part: string) => part.startsWith('answer:');

describe('the approval exchanges of a wire whose messages are lists of parts', () => {
  it("finds the model's last item, and the calls of an item that all ask the person", () => {
    expect(lastIn([{ role: 'user' }, { role: 'model' }, { role: 'user' }], 'model')).toBe(1);
    expect(lastIn([{ role: 'user' }], 'model')).toBe(-1);
    expect(allAsking(['ask', 'ask'], (call) => call === 'ask')).toEqual(['ask', 'ask']);
    expect([allAsking(['ask', 'run'], (call) => call === 'ask'), allAsking([], () => true)]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("takes a user item's answers out (the item as it was when it had none, nothing when they were all)", () => {
    const mixed = { role: 'user', parts: ['answer:1', 'result:2'] };
    const model = { role: 'model', parts: ['answer:look-alike'] };
    expect(withoutAnswers(mixed, shape, isAnswer)).toEqual({ role: 'user', parts: ['result:2'] });
    expect(withoutAnswers(model, shape, isAnswer)).toBe(model);
    expect(withoutAnswers({ role: 'user', parts: ['answer:1'] }, shape, isAnswer)).toBeUndefined();
    const plain = { role: 'user', parts: ['hi'] };
    expect(withoutAnswers(plain, shape, isAnswer)).toBe(plain);
  });

  it("puts an answer beside the turn's other answers, or in a user item of its own after the call", () => {
    const out: Item[] = [
      { role: 'model', parts: ['call:1'] },
      { role: 'user', parts: ['result:2'] },
      { role: 'model', parts: ['call:3'] },
    ];
    answerBeside(out, 0, 'result:1', shape);
    answerBeside(out, 2, 'result:3', shape);
    expect(out).toEqual([
      { role: 'model', parts: ['call:1'] },
      { role: 'user', parts: ['result:2', 'result:1'] },
      { role: 'model', parts: ['call:3'] },
      { role: 'user', parts: ['result:3'] },
    ]);
  });
});
