import { resultImages, resultText } from '../../lib/trellis/result';
import type { CallToolResult, ToolContent } from '../../lib/types';

const result = (...content: ToolContent[]): CallToolResult => ({ content });
const text = (value: string): ToolContent => ({ type: 'text', text: value });

describe('resultText', () => {
  it.each<[string, CallToolResult, string]>([
    ['joins text contents with newlines', result(text('first'), text('second')), 'first\nsecond'],
    [
      'names an image by type and size',
      result({ type: 'image', data: 'AAAA', mimeType: 'image/png' }),
      '[image: image/png, 3 bytes]',
    ],
    [
      'names audio by type and size',
      result({ type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' }),
      '[audio: audio/wav, 6 bytes]',
    ],
    [
      'uses an embedded resource text as-is',
      result({ type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } }),
      'inside',
    ],
    [
      'names an embedded binary resource',
      result({
        type: 'resource',
        resource: { uri: 'file:///a.bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
      }),
      '[resource: file:///a.bin; type: application/octet-stream; size: 3 bytes]',
    ],
    [
      'names a binary resource with all it says of itself',
      result({
        type: 'resource',
        resource: {
          uri: 'file:///r.pdf',
          name: 'r.pdf',
          description: 'Q3 report',
          blob: 'JVBERi0=',
          mimeType: 'application/pdf',
        },
      }),
      '[resource: file:///r.pdf; name: r.pdf; description: Q3 report; type: application/pdf; size: 5 bytes]',
    ],
    [
      'decodes a text/plain blob',
      result({
        type: 'resource',
        resource: { uri: 'file:///a.txt', blob: Buffer.from('héllo').toString('base64'), mimeType: 'text/plain' },
      }),
      'héllo',
    ],
    [
      'decodes a JSON blob',
      result({
        type: 'resource',
        resource: {
          uri: 'file:///a.json',
          blob: Buffer.from('{"a":1}').toString('base64'),
          mimeType: 'application/json; charset=utf-8',
        },
      }),
      '{"a":1}',
    ],
    [
      'decodes a +json blob',
      result({
        type: 'resource',
        resource: { uri: 'x:a', blob: Buffer.from('{}').toString('base64'), mimeType: 'application/ld+json' },
      }),
      '{}',
    ],
    [
      'describes a blob without a type',
      result({ type: 'resource', resource: { uri: 'x:a', blob: 'AAAA' } }),
      '[resource: x:a; size: 3 bytes]',
    ],
    [
      'names a resource link',
      result({ type: 'resource_link', uri: 'file:///b.txt', name: 'b' }),
      '[resource link: file:///b.txt; name: b]',
    ],
    [
      'keeps all a resource link says',
      result({
        type: 'resource_link',
        uri: 'file:///c.csv',
        name: 'c.csv',
        description: 'sales',
        mimeType: 'text/csv',
        size: 2048,
      }),
      '[resource link: file:///c.csv; name: c.csv; description: sales; type: text/csv; size: 2048 bytes]',
    ],
    [
      'reads a result with only structuredContent as its JSON',
      { content: [], structuredContent: { temperature: 21.5, unit: 'C' } },
      '{"temperature":21.5,"unit":"C"}',
    ],
    [
      'reads structuredContent when content is missing',
      { structuredContent: [1, 2] } as unknown as CallToolResult,
      '[1,2]',
    ],
    [
      'sends text and structuredContent once: the text wins',
      { content: [text('21.5 C')], structuredContent: { temperature: 21.5 } },
      '21.5 C',
    ],
    [
      'prefixes a failed structured result',
      { content: [], structuredContent: { code: 7 }, isError: true },
      'tool error: {"code":7}',
    ],
    ['names an unknown content type', result({ type: 'hologram', depth: 3 }), '[hologram content]'],
    [
      'mixes kinds in order',
      result(text('see'), { type: 'image', data: '', mimeType: 'image/gif' }),
      'see\n[image: image/gif, 0 bytes]',
    ],
    ['is empty for no content', result(), ''],
    [
      'prefixes an isError result with tool error',
      { content: [text('disk full')], isError: true },
      'tool error: disk full',
    ],
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
    [
      'counts the bytes of the whole text, not of the head',
      `${'é'.repeat(4)}${'x'.repeat(100)}`,
      5,
      'éé\n[truncated: 104 of 108 bytes cut]',
    ],
    ['keeps a text of exactly maxBytes whole', 'é😀', 6, 'é😀'],
  ])('truncation: %s', (_name, input, maxBytes, expected) => {
    expect(resultText(result(text(input)), maxBytes)).toBe(expected);
  });

  it('cuts a decoded text blob to the limit like any text', () => {
    const blob = Buffer.from('z'.repeat(100_000)).toString('base64');
    expect(resultText(result({ type: 'resource', resource: { uri: 'x:big', blob, mimeType: 'text/plain' } }), 10)).toBe(
      'zzzzzzzzzz\n[truncated: 99990 of 100000 bytes cut]',
    );
  });

  it('says an image is attached when images are passed on', () => {
    expect(resultText(result({ type: 'image', data: 'AAAA', mimeType: 'image/png' }), 1024, true)).toBe(
      '[image: image/png, 3 bytes; attached to the next message]',
    );
  });

  it('hands over the images, and nothing else, for the next turn', () => {
    const mixed = result(
      text('see'),
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
    );
    expect(resultImages(mixed)).toEqual([{ mimeType: 'image/png', data: 'AAAA' }]);
    expect(resultImages({ content: [text('none')] })).toEqual([]);
  });

  it('counts the bytes of all contents together', () => {
    const cut = resultText(result(text('a'.repeat(40)), text('b'.repeat(40))), 50);
    expect(cut).toBe(`${'a'.repeat(40)}\n${'b'.repeat(9)}\n[truncated: 31 of 81 bytes cut]`);
  });
});
