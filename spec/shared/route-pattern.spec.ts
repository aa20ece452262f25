import fc from 'fast-check';
import { AgentLoopError } from '../../lib/errors';
import { routePattern, routeProblem } from '../../lib/shared/route-pattern';

describe('a route pattern', () => {
  it('matches the end of a path, saying where its part begins', () => {
    const chat = routePattern('/chat/completions');
    expect(chat.match('/v1/chat/completions')).toEqual({ at: 3, params: {} });
    expect(chat.match('/chat/completions')).toEqual({ at: 0, params: {} });
    expect(chat.match('/v1/xchat/completions')).toBeUndefined();
    expect(chat.match('/v1/chat/completions/extra')).toBeUndefined();
    expect(chat.match('/v1/chat/Completions')).toBeUndefined();
  });

  it("reads a parameter as one segment's part, a literal : beside it (Gemini's model)", () => {
    const gemini = routePattern('/models/{model}:generateContent');
    expect(gemini.match('/v1beta/models/gemini-2.5-flash:generateContent')).toEqual({
      at: 7,
      params: { model: 'gemini-2.5-flash' },
    });
    expect(gemini.match('/v1beta/models/gemini-2.5-flash:streamGenerateContent')).toBeUndefined();
    expect(gemini.match('/v1beta/models/a/b:generateContent')).toBeUndefined();
    expect(gemini.match('/v1beta/models/:generateContent')).toBeUndefined();
    expect(gemini.match('/v1beta/models')).toBeUndefined();
  });

  it('takes * for a parameter without a name, and several parameters in several segments', () => {
    expect(routePattern('/files/*').match('/v1/files/file-abc')).toEqual({ at: 3, params: {} });
    expect(routePattern('/vector_stores/{store}/files/{file}').match('/v1/vector_stores/vs_1/files/f_2')).toEqual({
      at: 3,
      params: { store: 'vs_1', file: 'f_2' },
    });
  });

  it("escapes what a regular expression would read otherwise: a literal's dots and brackets are themselves", () => {
    const dotted = routePattern('/v1.0/a+b/(c)$');
    expect(dotted.match('/v1.0/a+b/(c)$')).toEqual({ at: 0, params: {} });
    expect(dotted.match('/v1x0/aab/c')).toBeUndefined();
    expect(dotted.match('/v1.0/aab/(c)$')).toBeUndefined();
  });

  it.each([
    ['chat/completions', 'it does not start with /'],
    ['/', "it has an empty or dot segment ''"],
    ['/a//b', "it has an empty or dot segment ''"],
    ['/a/', "it has an empty or dot segment ''"],
    ['/a/../b', "it has an empty or dot segment '..'"],
    ['/models/{model', "'{' in '{model' is neither a path character nor a {name} parameter"],
    ['/models/{}', "'{' in '{}' is neither a path character nor a {name} parameter"],
    ['/a b', "' ' in 'a b' is neither a path character nor a {name} parameter"],
    ['/a%2fb', "'%' in 'a%2fb' is neither a path character nor a {name} parameter"],
    ['/{a}{b}', "two parameters meet in '{a}{b}' (where would one end?)"],
    ['/*{b}', "two parameters meet in '*{b}' (where would one end?)"],
    ['/{a}/{a}', 'it names the parameter {a} twice'],
  ])('refuses %j with a coded error naming the pattern, what is wrong and the form', (source, problem) => {
    expect(routeProblem(source)).toBe(problem);
    expect(() => routePattern(source)).toThrow(AgentLoopError);
    expect(() => routePattern(source)).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_BAD_ROUTE',
        message:
          `the route pattern ${JSON.stringify(source)} is not one: ${problem}; write it as /segments of path ` +
          "characters with {name} parameters, e.g. '/models/{model}:generateContent'",
      }),
    );
  });

  describe('properties', () => {
    const literal = fc.stringMatching(/^[\w\-.~!$&'()+,;=:@]{1,8}$/).filter((s) => s !== '.' && s !== '..');
    const value = fc.stringMatching(/^[^/]{1,8}$/);
    const prefix = fc.array(fc.stringMatching(/^[^/]{1,6}$/), { maxLength: 3 }).map((s) => s.map((x) => `/${x}`));

    it('a pattern of literals matches exactly the paths ending with it, at the slash before it', () => {
      fc.assert(
        fc.property(fc.array(literal, { minLength: 1, maxLength: 4 }), prefix, (segments, before) => {
          const source = `/${segments.join('/')}`;
          const path = `${before.join('')}${source}`;
          expect(routePattern(source).match(path)).toEqual({ at: path.length - source.length, params: {} });
          expect(routePattern(source).match(`${path}x`)).toBeUndefined();
        }),
      );
    });

    it('a parameter gives back the value a path put in its place, whatever that value holds but a /', () => {
      fc.assert(
        fc.property(literal, value, literal, prefix, (head, model, tail, before) => {
          const path = `${before.join('')}/${head}/${model}:${tail}`;
          expect(routePattern(`/${head}/{model}:${tail}`).match(path)).toEqual({
            at: before.join('').length,
            params: { model },
          });
        }),
      );
    });
  });
});
