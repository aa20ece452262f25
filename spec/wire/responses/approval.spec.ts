import { approvalRequestItem, settleApprovals } from '../../../lib/wire/responses/approval';

const ID = 'call_del.ap1.abc.def';
const request = approvalRequestItem({ id: ID, tool: 'notes_delete', arguments: { id: 'groceries' } }, 'notes');
const work = [
  { type: 'function_call', call_id: 'call_open', name: 'notes_open', arguments: '{}' },
  { type: 'function_call', call_id: 'call_del', name: 'notes_delete', arguments: '{"id":"groceries"}' },
  { type: 'function_call_output', call_id: 'call_open', output: 'note ids: groceries' },
];
const user = { type: 'message', role: 'user', content: 'delete the groceries' };

describe('Responses approval items', () => {
  it("shows a waiting call as OpenAI's API emits an mcp_approval_request, the binding as server_label", () => {
    expect(request).toEqual({
      id: ID,
      type: 'mcp_approval_request',
      arguments: '{"id":"groceries"}',
      name: 'notes_delete',
      server_label: 'notes',
    });
  });

  it('takes the approval items out and reads the trailing responses as the ones deciding now', () => {
    const settled = settleApprovals([
      user,
      ...work,
      request,
      { type: 'mcp_approval_response', approval_request_id: ID, approve: false, reason: ' keep it ' },
    ]);
    expect(settled).toEqual({
      input: [user, ...work],
      live: [{ approvalId: ID, shownTool: 'notes_delete', answer: { approved: false, reason: 'keep it' } }],
    });
  });

  it('puts the model’s call back when the work did not come back (its token did not open)', () => {
    const settled = settleApprovals([{ type: 'mcp_approval_response', approval_request_id: ID, approve: true }]);
    expect(settled?.input).toEqual([{ type: 'function_call', call_id: 'call_del', name: 'the call', arguments: '{}' }]);
    expect(settled?.live).toEqual([{ approvalId: ID, shownTool: 'the call', answer: { approved: true } }]);
  });

  it('leaves the model’s call where the upstream holds it (chained on previous_response_id)', () => {
    const settled = settleApprovals([{ type: 'mcp_approval_response', approval_request_id: ID, approve: true }], true);
    expect(settled).toEqual({
      input: [],
      live: [{ approvalId: ID, shownTool: 'the call', answer: { approved: true } }],
    });
  });

  it('answers an older response as it was decided, unless a later output carried its result', () => {
    const later = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] };
    const approved = { type: 'mcp_approval_response', approval_request_id: ID, approve: true };
    expect(settleApprovals([user, ...work, request, approved, later, user])).toEqual({
      input: [
        user,
        ...work,
        {
          type: 'function_call_output',
          call_id: 'call_del',
          output:
            "[the result of 'notes_delete' is not kept: it ran in an earlier request, after a person approved it]",
        },
        later,
        user,
      ],
      live: [],
    });
    const carried = { type: 'function_call_output', call_id: 'call_del', output: 'deleted groceries' };
    expect(settleApprovals([user, ...work, request, approved, carried, later])?.input).toEqual([
      user,
      ...work,
      carried,
      later,
    ]);
  });

  it('leaves an input without responses to this gateway alone', () => {
    expect(
      settleApprovals([user, { type: 'mcp_approval_response', approval_request_id: 'mcpr_upstream', approve: true }]),
    ).toBeUndefined();
  });
});
