import { modelInBody } from '../../../lib/wire/kit/model-in-body';

describe('modelInBody: the model most wires ask for', () => {
  it("reads the body's `model`, undefined when it names none", () => {
    expect(modelInBody({ model: 'gpt-4o' })).toBe('gpt-4o');
    expect(modelInBody({})).toBeUndefined();
  });
});
