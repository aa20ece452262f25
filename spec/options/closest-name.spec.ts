import { closest, distance } from '../../lib/options/closest-name';

describe('distance', () => {
  it.each([
    ['maxTurns', 'maxTurns', 0],
    ['maxturns', 'maxTurns', 0],
    ['maxTurn', 'maxTurns', 1],
    ['maxTrns', 'maxTurns', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])("from '%s' to '%s' is %i edits, case aside", (a, b, edits) => {
    expect(distance(a, b)).toBe(edits);
  });
});

describe('closest: the known name a misspelt key meant', () => {
  const known = ['defaultMaxTurns', 'maxTokensPerLoop', 'maxTurns', 'listTtlSec'];

  it('takes a name that contains the key, then one sharing its words in order, then one a few letters off', () => {
    expect(closest('Turns', ['defaultMaxTurns', 'maxTokensPerLoop'])).toBe('defaultMaxTurns');
    expect(closest('maxTurnsPerLoop', known)).toBe('maxTurns');
    expect(closest('listTTLSec', known)).toBe('listTtlSec');
  });

  it('guesses nothing for a key far from every name', () => {
    expect(closest('temperature', known)).toBeUndefined();
  });
});
