import { localTrellis, runCode, scriptedModel, type ScriptedModel } from '../../lib/testing';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { answerText, GEMINI, type Wire } from './wire-clients';

const PROGRAM = "console.log('counting');\nconst n = await tools.count({});\nconsole.log('counted', n);\nreturn n;";
/** what the model reads of the program, as a tool result's text */
const RESULT = '{"return":{"n":3},"log":["counting","counted {\\"n\\":3}"]}';
const LOG = ['counting', 'counted {"n":3}'];

/** A raw streamed request on each wire, as its client sends it: path, headers, body. */
const RAW: Record<Wire, { path: string; headers: Record<string, string>; body: unknown }> = {
  chat: {
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer client-key' },
    body: { model: 'agent-1', messages: [{ role: 'user', content: 'count' }], stream: true },
  },
  responses: {
    path: '/v1/responses',
    headers: { authorization: 'Bearer client-key' },
    body: { model: 'agent-1', input: 'count', stream: true },
  },
  messages: {
    path: '/v1/messages',
    headers: { 'x-api-key': 'client-key', 'anthropic-version': '2023-06-01' },
    body: { model: 'claude-test', max_tokens: 256, messages: [{ role: 'user', content: 'count' }], stream: true },
  },
  gemini: {
    path: `/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`,
    headers: { 'x-goog-api-key': 'client-key' },
    body: { contents: [{ role: 'user', parts: [{ text: 'count' }] }] },
  },
};

/** The program's log lines a raw stream carried as SSE comments, which no official client shows. */
async function streamedLog(gateway: Listening, wire: Wire): Promise<string[]> {
  const { path, headers, body } = RAW[wire];
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(text).toContain('ran');
  return [...text.matchAll(/^: log run_code (.*)$/gm)].map(([, line]) => line);
}

describe('code mode on every wire, JSON and streamed, with the official clients', () => {
  let model: ScriptedModel;
  let gateway: Listening;
  let counted = 0;
  beforeAll(async () => {
    model = scriptedModel([
      runCode(PROGRAM),
      // the answer says whether the model read the program's result, on every wire's shape of a tool result
      (request) => ({ content: JSON.stringify(request.history.at(-1)).includes('counting') ? 'ran' : 'no result' }),
    ]);
    await model.ready;
    const trellis = localTrellis([{ name: 'count', description: 'Counts.', handler: () => (counted++, '{"n": 3}') }]);
    gateway = await listen(
      buildGateway(model.url, {
        trellis,
        bindings: [{ name: 'count', match: { model: '*' }, hierarchy: 'from-trellis', codeMode: true }],
      }).app,
    );
  });
  afterAll(async () => {
    await gateway.close();
    await model.close();
  });

  describe.each<Wire>(['chat', 'responses', 'messages', 'gemini'])('%s', (wire) => {
    it.each([false, true])('runs the program and answers (stream: %s)', async (stream) => {
      counted = 0;
      expect(await answerText(gateway, wire, stream, 'count')).toBe('ran');
      expect(counted).toBe(1);
    });

    it("streams the program's console.log lines as SSE comments, one a line", async () => {
      expect(await streamedLog(gateway, wire)).toEqual(LOG);
    });
  });

  it('gives the model the return value and the log as the tool result', async () => {
    const start = model.requests.length;
    await answerText(gateway, 'chat', false, 'count');
    expect((model.requests[start + 1].body.messages as unknown[]).at(-1)).toMatchObject({
      role: 'tool',
      content: RESULT,
    });
  });
});
