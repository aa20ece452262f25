import { isObject } from '../../lib/shared/fields';

describe('isObject: a JSON object, as a body the loop did not write may hold one', () => {
  it('tells objects from lists, null and scalars', () => {
    expect([isObject({}), isObject({ a: 1 }), isObject([]), isObject(null), isObject('a'), isObject(1)]).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
