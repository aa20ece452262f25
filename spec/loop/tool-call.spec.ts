import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { localTrellis } from '../../lib/trellis/local';
import type { Judge, JudgeInput } from '../../lib/types';
import { buildGateway } from '../helpers/gateway';

const ran: Record<string, unknown>[] = [];
const repo = localTrellis([
  {
    name: 'repo_open',
    handler: (args) =>
      args.fail
        ? { content: [{ type: 'text', text: 'no such repo' }], isError: true }
        : 'tool error: looks like one, but the repo is open',
  },
  { name: 'repo_read', handler: (args) => (ran.push(args), `read ${String(args.path)}`) },
]);
const binding = {
  name: 'repo',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }],
};
const ask = { model: 'agent-1', messages: [{ role: 'user', content: 'read it' }] };
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  toolCalls: [{ id, name, arguments: args }],
});

describe('one tool call, from the model’s request to the text the model reads', () => {
  let model: ModelServer;
  beforeEach(async () => {
    ran.length = 0;
    model = await startModelServer();
  });
  afterEach(() => model.close());
  const toolTexts = (turn: number) =>
    model.requests[turn].body.messages.filter((m) => m.role === 'tool').map((m) => m.content);

  it('unlocks the children by the kind of the outcome, never its text: an isError result does not, an ok one reading "tool error:" does', async () => {
    model.setScript([
      call('c1', 'repo_open', { fail: true }),
      call('c2', 'repo_read', { path: 'a' }),
      call('c3', 'repo_open'),
      call('c4', 'repo_read', { path: 'a' }),
      { content: 'Done.' },
    ]);
    await request(buildGateway(model.url, { trellis: repo, bindings: [binding] }).app)
      .post('/v1/chat/completions')
      .send(ask)
      .expect(200);
    expect(toolTexts(4)).toEqual([
      'tool error: no such repo',
      "⛔ 'repo_read' is locked: call 'repo_open' first.",
      'tool error: looks like one, but the repo is open',
      'read a',
    ]);
  });

  it("runs the judge's rewrite of the arguments, and gives the model the judge's rewrite of the result, or its block", async () => {
    const seen: JudgeInput[] = [];
    const judge: Judge = {
      async evaluate(input) {
        seen.push(structuredClone(input));
        if (input.surface === 'tool_call')
          return input.tool === 'repo_read' ? { action: 'rewrite', arguments: { path: 'safe' } } : { action: 'allow' };
        if (input.tool === 'repo_open') return { action: 'rewrite', result: 'opened (redacted)' };
        return { action: 'block', reason: 'the result names a secret' };
      },
    };
    model.setScript([call('c1', 'repo_open'), call('c2', 'repo_read', { path: '/etc/passwd' }), { content: 'Done.' }]);
    const res = await request(buildGateway(model.url, { trellis: repo, bindings: [binding], judge }).app)
      .post('/v1/chat/completions')
      .send(ask)
      .expect(200);

    expect(ran).toEqual([{ path: 'safe' }]);
    expect(toolTexts(2)).toEqual(['opened (redacted)', 'tool error: blocked by policy: the result names a secret']);
    expect(
      seen.map((input) => [input.surface, input.tool, input.surface === 'context' ? input.result : input.arguments]),
    ).toEqual([
      ['tool_call', 'repo_open', {}],
      ['context', 'repo_open', 'tool error: looks like one, but the repo is open'],
      ['tool_call', 'repo_read', { path: '/etc/passwd' }],
      ['context', 'repo_read', 'read safe'],
    ]);
    expect(res.headers['x-agent-loop-blocked']).toBe('1');
  });
});
