import OpenAI from 'openai';
import { z } from 'zod';
import { startMcpServer, type McpFixtureServer } from '../../../fixtures/mcp-server';
import { startResponsesServer, type ResponsesServer } from '../../../fixtures/responses-server';
import { buildGateway } from '../../helpers/gateway';
import { listen, type Listening } from '../../helpers/listen';

type Item = Record<string, unknown>;
const binding = { name: 'notes', match: { model: 'agent-*' }, hierarchy: ['notes_open', 'notes_delete'] };
const judge = {
  rules: [
    {
      surface: 'tool_call' as const,
      when: { annotation: 'destructiveHint' },
      action: 'ask' as const,
      reason: 'it deletes a note',
    },
  ],
};
const script = [
  {
    text: 'On it.',
    calls: [
      { callId: 'c_open', name: 'notes_open' },
      { callId: 'c_del', name: 'notes_delete', arguments: { id: 'groceries' } },
    ],
  },
  { text: 'Done.' },
];
const input = [{ role: 'user' as const, content: 'delete the groceries' }];

describe('approvals on OpenAI Responses: mcp_approval_request out, mcp_approval_response in', () => {
  let mcp: McpFixtureServer;
  let model: ResponsesServer;
  let gateway: Listening;
  let client: OpenAI;
  let closeLoop: () => Promise<unknown>;
  const deleted = () => mcp.calls.filter((call) => call.name === 'notes_delete').map((call) => String(call.args.id));
  beforeEach(async () => {
    mcp = await startMcpServer();
    mcp.setTool({
      name: 'notes_open',
      description: 'Open the notebook',
      annotations: { readOnlyHint: true },
      handler: () => ({ content: [{ type: 'text', text: 'notes: groceries' }] }),
    });
    mcp.setTool({
      name: 'notes_delete',
      description: 'Delete a note',
      args: { id: z.string() },
      annotations: { destructiveHint: true },
      handler: ({ id }) => ({ content: [{ type: 'text', text: `deleted ${String(id)}` }] }),
    });
    model = await startResponsesServer();
    model.setScript(script);
    const built = buildGateway(model.url, { trellis: { mcp: { url: mcp.url } }, bindings: [binding], judge });
    closeLoop = () => built.loop.close();
    gateway = await listen(built.app);
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0 });
  });
  afterEach(async () => {
    await gateway.close();
    await closeLoop();
    await model.close();
    await mcp.close();
  });

  it('ends the turn with an mcp_approval_request (server_label: the binding); approved, the call runs and the loop goes on', async () => {
    const first = await client.responses.create({ model: 'agent-1', input });
    const request = first.output.find(
      (item) => item.type === 'mcp_approval_request',
    ) as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    expect(request).toEqual({
      id: expect.stringMatching(/^c_del\.ap1\./),
      type: 'mcp_approval_request',
      arguments: '{"id":"groceries"}',
      name: 'notes_delete',
      server_label: 'notes',
    });
    expect(deleted()).toEqual([]);

    const answer = await client.responses.create({
      model: 'agent-1',
      input: [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'mcp_approval_response', approval_request_id: request.id, approve: true },
      ],
    });
    expect(answer.output_text).toBe('Done.');
    expect(deleted()).toEqual(['groceries']);
    const sent = model.requests[1].body.input as Item[];
    expect(
      sent.filter((item) => item.type === 'function_call_output').map((item) => [item.call_id, item.output]),
    ).toEqual([
      ['c_open', 'notes: groceries'],
      ['c_del', 'deleted groceries'],
    ]);
    expect(sent.some((item) => String(item.type).startsWith('mcp_'))).toBe(false);
  });

  it('denied, the model reads why', async () => {
    const first = await client.responses.create({ model: 'agent-1', input });
    const request = first.output.find((item) => item.type === 'mcp_approval_request')!;
    await client.responses.create({
      model: 'agent-1',
      input: [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        {
          type: 'mcp_approval_response',
          approval_request_id: (request as { id: string }).id,
          approve: false,
          reason: 'keep it',
        },
      ],
    });
    expect(deleted()).toEqual([]);
    expect(
      (model.requests[1].body.input as Item[])
        .filter((item) => item.type === 'function_call_output')
        .map((item) => item.output),
    ).toEqual(['notes: groceries', "tool error: 'notes_delete' was not approved: keep it"]);
  });

  it('chained on previous_response_id: the upstream gets the answers of the turn that waited, and only those', async () => {
    const first = await client.responses.create({ model: 'agent-1', input });
    const request = first.output.find((item) => item.type === 'mcp_approval_request')!;
    const answer = await client.responses.create({
      model: 'agent-1',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: (request as { id: string }).id, approve: false }],
    });
    expect(answer.output_text).toBe('Done.');
    expect(deleted()).toEqual([]);
    expect(model.requests[1].body.previous_response_id).toBe(model.replies[0].id);
    expect(model.requests[1].body.input).toEqual([
      { type: 'function_call_output', call_id: 'c_open', output: 'notes: groceries' },
      {
        type: 'function_call_output',
        call_id: 'c_del',
        output: "tool error: 'notes_delete' was not approved: no reason given",
      },
    ]);
  });

  it('streams the approval request as its own output item', async () => {
    const stream = client.responses.stream({ model: 'agent-1', input });
    const added: string[] = [];
    for await (const event of stream) if (event.type === 'response.output_item.done') added.push(event.item.type);
    const final = await stream.finalResponse();
    expect(added).toContain('mcp_approval_request');
    expect(final.output.map((item) => item.type)).toEqual(['message', 'mcp_approval_request']);

    const request = final.output[1] as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    const answer = await client.responses
      .stream({
        model: 'agent-1',
        input: [
          ...input,
          ...(final.output as OpenAI.Responses.ResponseInputItem[]),
          { type: 'mcp_approval_response', approval_request_id: request.id, approve: true },
        ],
      })
      .finalResponse();
    expect(answer.output_text).toBe('Done.');
    expect(deleted()).toEqual(['groceries']);
  });
});
