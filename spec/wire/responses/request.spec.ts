import { responsesWire } from '../../../lib/wire/responses/responses';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const user = { type: 'message', role: 'user', content: 'hi' };
const opened = (body: Record<string, unknown>, setup = loopSetup([loopTool('repo_read')])) =>
  responsesWire.open(body, setup);
const sent = (body: Record<string, unknown>, setup?: ReturnType<typeof loopSetup>) =>
  JSON.parse(opened(body, setup).conversation.request().json);

describe("the Responses wire's request", () => {
  it.each([
    [{ input: 'hi' }, true],
    [{ input: [user] }, true],
    [{ input: '' }, false],
    [{ input: [] }, false],
    [{ input: ['hi'] }, false],
    [{ input: 'hi', background: true }, false],
    [{ messages: [user] }, false],
  ])('serves %j: %s', (body, served) => {
    expect(responsesWire.accepts(body)).toBe(served);
  });

  it("asks every turn with the loop's functions (not strict) first, the client's own after, never the approval tool", () => {
    const theirs = { type: 'function', name: 'get_weather', parameters: { type: 'object' } };
    const body = sent({
      model: 'agent-1',
      input: 'hi',
      tools: [theirs, { type: 'function', name: 'approve_tool_call' }, { type: 'web_search' }],
    });
    expect(body.input).toEqual([user]);
    expect(body.tools).toEqual([
      { type: 'function', name: 'repo_read', parameters: { type: 'object' }, strict: false },
      theirs,
      { type: 'web_search' },
    ]);
    expect(body.stream).toBe(false);
    expect([...opened({ input: 'hi', tools: [theirs] }).clientTools]).toContain('get_weather');
  });

  it('carries the whole input as items, unless the client chains on the upstream (previous_response_id, conversation)', () => {
    expect(sent({ input: 'hi', previous_response_id: 'resp_1' })).toMatchObject({
      input: 'hi',
      previous_response_id: 'resp_1',
    });
    expect(sent({ input: 'hi', conversation: 'conv_1' }).input).toBe('hi');
    expect(sent({ input: 'hi', conversation: null }).input).toEqual([user]);
  });

  it('offers the input tool only to a client that declares it', () => {
    const setup = loopSetup([], { inputTool: 'answer_question' });
    expect(opened({ input: 'hi' }, setup).inputTool).toBeUndefined();
    const asking = { input: 'hi', tools: [{ type: 'function', name: 'answer_question' }] };
    expect(opened(asking, setup).inputTool).toBe('answer_question');
  });
});
