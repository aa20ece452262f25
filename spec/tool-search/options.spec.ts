import { agentLoop } from '../../lib';
import { toolSearchOf } from '../../lib/tool-search/options';

describe('toolSearchOf', () => {
  it('is on by default: above 64, keep none, 5 results', () => {
    expect(toolSearchOf(undefined, undefined)).toEqual({ above: 64, keep: [], maxResults: 5, native: false });
  });

  it("takes the binding's fields over the global ones", () => {
    expect(toolSearchOf({ above: 10, maxResults: 8 }, { keep: ['a'], maxResults: 3 })).toEqual({
      above: 10,
      keep: ['a'],
      maxResults: 3,
      native: false,
    });
  });

  it("is off when the one in force says false; a binding's object turns it on again", () => {
    expect(toolSearchOf(false, undefined)).toBe(false);
    expect(toolSearchOf({ above: 1 }, false)).toBe(false);
    expect(toolSearchOf(false, { native: true })).toEqual({ above: 64, keep: [], maxResults: 5, native: true });
  });
});

describe('the toolSearch option', () => {
  const binding = { name: 'b', match: { model: '*' }, hierarchy: 'from-trellis' as const };
  const trellis = { listTools: async () => [], callTool: async () => ({ content: [] }) };

  it.each([
    [
      { toolSearch: { maxResults: 21 } },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "option 'toolSearch.maxResults' is 21; it must be a whole number from 1 to 20 (default 5), e.g. maxResults: 5.",
    ],
    [{ toolSearch: true }, 'ERR_AGENT_LOOP_INVALID_OPTION', "option 'toolSearch' is true; it must be false (off) or {"],
    [
      { toolSearch: { abov: 3 } },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "unknown option 'toolSearch.abov'. Did you mean `above`?",
    ],
    [
      { bindings: [{ ...binding, toolSearch: { keep: 'repo_open' } }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'option \'bindings[0].toolSearch.keep\' is "repo_open"; it must be a list of tool names',
    ],
  ])('%j throws %s: %s', (options, code, message) => {
    expect(() => agentLoop({ trellis, ...options } as never)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) }),
    );
  });
});
