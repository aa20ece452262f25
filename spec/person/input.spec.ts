import { askedInput, MAX_QUESTION_BYTES } from '../../lib/person/input';
import type { InputRequired } from '../../lib/types';

type AskingLoop = Parameters<typeof askedInput>[0];
const loop = { input: { tool: 'ask_user', maxRounds: 2 } } as unknown as AskingLoop;
const allowed = async () => ({ blocked: false as const });
const form = (properties: Record<string, unknown>): InputRequired => ({
  inputRequests: {
    q: { method: 'elicitation/create', params: { message: 'Which?', requestedSchema: { type: 'object', properties } } },
  },
  requestState: 's',
  answered: { r: { roots: [] } },
});
const url = (link: string): InputRequired => ({
  inputRequests: { v: { method: 'elicitation/create', params: { mode: 'url', message: 'Go', url: link } } },
});

describe('askedInput: a tool’s input_required as questions for the person, or why not', () => {
  it('asks a form and a URL, with the state and the answers given already', async () => {
    expect(await askedInput(loop, 'pay', { a: 1 }, form({ account: { type: 'string' } }), 1, allowed)).toEqual({
      kind: 'asks',
      input: {
        arguments: { a: 1 },
        questions: {
          q: {
            tool: 'pay',
            message: 'Which?',
            mode: 'form',
            requestedSchema: { type: 'object', properties: { account: { type: 'string' } } },
          },
        },
        requestState: 's',
        answered: { r: { roots: [] } },
        round: 1,
      },
    });
    for (const link of ['https://pay.example.com/x', 'http://127.0.0.1:8080/x', 'http://localhost/x'])
      expect((await askedInput(loop, 'pay', {}, url(link), 1, allowed)).kind).toBe('asks');
  });

  it.each([
    ['a client without the input tool', { input: undefined }, form({}), 1, { why: 'cannot_ask' }],
    ['past maxRounds', {}, form({}), 3, { why: 'max_rounds', maxRounds: 2 }],
    [
      'a secret by its description',
      {},
      form({ k: { type: 'string', description: 'Your API key' } }),
      1,
      { why: 'secret', field: 'k' },
    ],
    [
      'a token by its name',
      {},
      form({ access_token: { type: 'string' } }),
      1,
      { why: 'secret', field: 'access_token' },
    ],
    [
      'plain http elsewhere',
      {},
      url('http://pay.example.com/'),
      1,
      { why: 'insecure_url', url: '"http://pay.example.com/"' },
    ],
    ['no URL at all', {}, url('javascript:alert(1)'), 1, { why: 'insecure_url', url: '"javascript:alert(1)"' }],
    [
      'sampling',
      {},
      { inputRequests: { s: { method: 'sampling/createMessage', params: {} } } },
      1,
      { why: 'unsupported', method: 'sampling/createMessage' },
    ],
    [
      'a question too large',
      {},
      form({ x: { type: 'string', description: 'x'.repeat(MAX_QUESTION_BYTES) } }),
      1,
      { why: 'too_large', maxBytes: MAX_QUESTION_BYTES },
    ],
  ])('refuses %s', async (_, over, asked, round, why) => {
    const outcome = await askedInput(
      { ...loop, ...over } as AskingLoop,
      'pay',
      {},
      asked as InputRequired,
      round,
      allowed,
    );
    expect(outcome).toEqual({ kind: 'unanswered', tool: 'pay', ...why });
  });

  it("lets the judge's context surface block the question before the person sees it", async () => {
    const seen: string[] = [];
    const outcome = await askedInput(loop, 'pay', {}, form({}), 1, async (text) => {
      seen.push(text);
      return { blocked: true, reason: 'phishing' };
    });
    expect(outcome).toEqual({ kind: 'blocked', reason: 'phishing' });
    expect(JSON.parse(seen[0])).toEqual([
      { tool: 'pay', message: 'Which?', mode: 'form', requestedSchema: { type: 'object', properties: {} } },
    ]);
  });
});
