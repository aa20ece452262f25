import request from 'supertest';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import { buildGateway } from '../helpers/gateway';

const removed: string[] = [];
const trellis = localTrellis([{ name: 'rm', handler: () => (removed.push('rm'), 'removed') }]);
const bindings = [{ name: 'files', match: { model: 'agent-*' }, hierarchy: ['rm'] }];
const judge = { rules: [{ surface: 'tool_call' as const, tool: 'rm', action: 'ask' as const, reason: 'it deletes' }] };
const approveTool = {
  type: 'function',
  function: { name: 'approve_tool_call', description: 'Ask the user to approve a tool call.', parameters: {} },
};
const question = { role: 'user', content: 'remove the file' };

describe("a follow-up's approval answers, applied before any turn", () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer();
    removed.length = 0;
  });
  afterEach(() => model.close());

  /** The first request: the model calls rm, the judge asks, the call is handed to the person; then the answer. */
  async function approved(...after: ScriptStep[]) {
    const steps = [{ toolCalls: [{ id: 'c_rm', name: 'rm' }] }, ...after];
    let calls = 0;
    model.setScript(() => steps[Math.min(calls++, steps.length - 1)]);
    const { app } = buildGateway(model.url, { trellis, bindings, judge });
    const first = await request(app)
      .post('/v1/chat/completions')
      .send({ model: 'agent-1', messages: [question], tools: [approveTool] })
      .expect(200);
    const handed = first.body.choices[0].message;
    expect(handed.tool_calls[0].function.name).toBe('approve_tool_call');
    expect(removed).toEqual([]);
    const answer = { role: 'tool', tool_call_id: handed.tool_calls[0].id, content: '{"approved": true}' };
    return request(app)
      .post('/v1/chat/completions')
      .send({ model: 'agent-1', messages: [question, handed, answer], tools: [approveTool] })
      .expect(200);
  }

  it("runs the approved call before the model's next turn, which reads its result", async () => {
    const res = await approved({ content: 'Removed.' });
    expect(res.body.choices[0].message.content).toBe('Removed.');
    expect(removed).toEqual(['rm']);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1].body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c_rm', content: 'removed' });
  });

  it('hands the normal handler the conversation with the call answered when the follow-up falls through', async () => {
    const res = await approved({ status: 503 }, { content: 'from the normal handler' });
    expect(res.body.choices[0].message.content).toBe('from the normal handler');
    expect(removed).toEqual(['rm']);
    // the loop's turn failed, the normal handler forwarded the request: the approved call's answer is in it
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2].body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c_rm', content: 'removed' });
  });
});
