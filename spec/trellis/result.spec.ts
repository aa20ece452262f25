import { resultText } from '../../lib/trellis/result';
import type { CallToolResult, ToolContent } from '../../lib/types';

const result = (...content: ToolContent[]): CallToolResult => ({ content });
const text = (value: string): ToolContent => ({ type: 'text', text: value });

describe('resultText', () => {
  it.each<[string, CallToolResult, string]>([
    ['joins text contents with newlines', result(text('first'), text('second')), 'first\nsecond'],
    ['names an image by type and size', result({ type: 'image', data: 'AAAA', mimeType: 'image/png' }), '[image: image/png, 3 bytes]'],
    ['names audio by type and size', result({ type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' }), '[audio: audio/wav, 6 bytes]'],
    ['uses an embedded resource text as-is', result({ type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } }), 'inside'],
    [
      'names an embedded binary resource',
      result({ type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } }),
      '[resource: file:///a.bin (application/octet-stream)]',
    ],
    ['names a resource link', result({ type: 'resource_link', uri: 'file:///b.txt', name: 'b' }), '[resource link: file:///b.txt]'],
    ['names an unknown content type', result({ type: 'hologram', depth: 3 }), '[hologram content]'],
    ['mixes kinds in order', result(text('see'), { type: 'image', data: '', mimeType: 'image/gif' }), 'see\n[image: image/gif, 0 bytes]'],
    ['is empty for no content', result(), ''],
    ['keeps an isError result text', { content: [text('disk full')], isError: true }, 'disk full'],
  ])('%s', (_name, input, expected) => {
    expect(resultText(input, 65536)).toBe(expected);
  });

  it.each<[string, string, number, string]>([
    ['keeps text that fits', 'hello', 10, 'hello'],
    ['keeps text exactly at the limit', 'abc', 3, 'abc'],
    ['cuts ASCII and says how much', 'hello world', 5, 'hello\n[truncated: 6 of 11 bytes cut]'],
    ['never splits a two-byte character', 'ééé', 3, 'é\n[truncated: 4 of 6 bytes cut]'],
    ['never splits a four-byte character', '😀😀', 5, '😀\n[truncated: 4 of 8 bytes cut]'],
    ['cuts everything at zero', 'abc', 0, '\n[truncated: 3 of 3 bytes cut]'],
    ['never splits a surrogate pair at the end of the head', 'a😀b', 2, 'a\n[truncated: 5 of 6 bytes cut]'],
    ['counts the bytes of the whole text, not of the head', `${'é'.repeat(4)}${'x'.repeat(100)}`, 5, 'éé\n[truncated: 104 of 108 bytes cut]'],
    ['keeps a text of exactly maxBytes whole', 'é😀', 6, 'é😀'],
  ])('truncation: %s', (_name, input, maxBytes, expected) => {
    expect(resultText(result(text(input)), maxBytes)).toBe(expected);
  });

  it('counts the bytes of all contents together', () => {
    const cut = resultText(result(text('a'.repeat(40)), text('b'.repeat(40))), 50);
    expect(cut).toBe(`${'a'.repeat(40)}\n${'b'.repeat(9)}\n[truncated: 31 of 81 bytes cut]`);
  });
});
