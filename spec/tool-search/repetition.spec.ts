import { RE2JS } from 're2js';
import { repetitionOf } from '../../lib/tool-search/repetition';

describe('repetitionOf', () => {
  it.each([
    ['pull_request|merge', 1],
    ['a{5}', 5],
    ['a{2,}', 2],
    ['a{2,7}b{9}', 9],
    ['(?:a?.|.b?){0,1000}QQ', 1000],
    ['(?:(?:ab){10}c{3}){100}', 1000],
    ['(?:x{4})(?:y{6})', 6],
    ['((a{3}){4}){5}', 60],
    ['(?:a{3}|b{8}){2}', 16],
  ])('reads %j as %d copies, nested counts multiplied', (pattern, copies) => {
    expect(repetitionOf(pattern)).toBe(copies);
  });

  it.each([
    ['\\{1000\\}', 1],
    ['a{,1000}', 1],
    ['[{1000}]', 1],
    ['[]{9}]', 1],
    ['[^]{9}]x', 1],
    ['[[:alpha:]{9}]', 1],
    ['\\p{Greek}{7}', 7],
    ['\\pL{7}', 7],
    ['\\x{263a}{6}', 6],
    ['\\Q(a){1000}\\E{3}', 3],
    ['[\\]{9}]{4}', 4],
  ])('reads no count in a literal, a class or an escape: %j is %d', (pattern, copies) => {
    expect(repetitionOf(pattern)).toBe(copies);
    expect(() => RE2JS.compile(pattern)).not.toThrow();
  });

  it('reads unbalanced patterns without failing', () => {
    expect(repetitionOf('(a{9}')).toBe(9);
    expect(repetitionOf('a{9})){3}')).toBe(9);
  });
});
