import { notesWalk } from '../../fixtures/demo-model';
import { eventually } from '../trellis/helpers';
import { ask, mcpRig } from './mcp-gateway';

const notes = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now', 'fails'],
};
const LOCKED = "⛔ 'notes_read' is locked: call 'notes_open' first.";
// The SDK tags schemas with $schema; the model is offered the schema whole, the tag with it (docs/mcp.md).
const NO_ARGUMENTS = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} };

describe('the loop over a real MCP Trellis (Streamable HTTP), with the openai client', () => {
  const rig = mcpRig();

  it("offers the Trellis' own definitions, calls its tools and answers from their results", async () => {
    const { client } = await rig.gateway(
      [{ toolCalls: [{ id: 'c1', name: 'clock_now' }] }, { content: 'It is noon.' }],
      { bindings: [notes] },
    );
    const { data, response } = await client.chat.completions.create(ask('what time is it?')).withResponse();

    expect(data.choices[0].message.content).toBe('It is noon.');
    expect(response.headers.get('x-agent-loop-turns')).toBe('2');
    expect(response.headers.get('x-agent-loop-tool-calls')).toBe('1');
    expect(rig.model.requests[0].body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'notes_open',
          description: 'Open the notebook and list the ids of its notes.',
          parameters: NO_ARGUMENTS,
        },
      },
      {
        type: 'function',
        function: {
          name: 'notes_read',
          description: 'Read one note by id (open the notebook first).',
          parameters: expect.objectContaining({
            type: 'object',
            properties: { id: { type: 'string', description: 'a note id from notes_open' } },
            required: ['id'],
          }),
        },
      },
      {
        type: 'function',
        function: { name: 'clock_now', description: 'The current time, ISO 8601.', parameters: NO_ARGUMENTS },
      },
      { type: 'function', function: { name: 'fails', description: 'Always fails.', parameters: NO_ARGUMENTS } },
    ]);
    expect(rig.toolTexts(1)).toEqual(['2025-01-01T12:00:00.000Z']);
    expect(rig.mcp.calls).toEqual([{ name: 'clock_now', args: {} }]);
  });

  it("hands an isError result to the model as the tool's own text after 'tool error: ', and the loop goes on", async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'fails' }] }, { content: 'The disk is full.' }], {
      bindings: [notes],
    });
    const answer = await client.chat.completions.create(ask());
    expect(answer.choices[0].message.content).toBe('The disk is full.');
    expect(rig.toolTexts(1)).toEqual(['tool error: disk full']);
  });

  it('refuses a locked child with ⛔, then runs it once the model has opened its parent', async () => {
    const { client } = await rig.gateway(notesWalk, { bindings: [notes] });
    const { data, response } = await client.chat.completions.create(ask('what is on my grocery list?')).withResponse();

    expect(data.choices[0].message.content).toBe(
      "Let me look in your notes.\n\nThe notebook has to be opened first.\n\nYour note 'groceries' says: Milk, eggs, coffee beans, lemons. (checked at 2025-01-01T12:00:00.000Z)",
    );
    expect(response.headers.get('x-agent-loop-turns')).toBe('4');
    expect(response.headers.get('x-agent-loop-tool-calls')).toBe('4');
    expect(rig.toolTexts(3)).toEqual([
      LOCKED,
      'note ids: welcome, groceries, standup',
      'Milk, eggs, coffee beans, lemons.',
      '2025-01-01T12:00:00.000Z',
    ]);
    expect(rig.mcp.calls.map((call) => call.name)).toEqual(['notes_open', 'notes_read', 'clock_now']);
  });

  it("takes the tree from the tools' _meta.parent with hierarchy 'from-trellis'", async () => {
    const fromTrellis = { name: 'all', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'notes_read', arguments: { id: 'welcome' } }] }, { content: 'Locked.' }],
      { bindings: [fromTrellis] },
    );
    await client.chat.completions.create(ask());
    const offered = (rig.model.requests[0].body.tools as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    expect(offered).toEqual(['notes_open', 'notes_read', 'clock_now', 'slow', 'fails', 'big', 'image']);
    expect(rig.toolTexts(1)).toEqual([LOCKED]);
  });

  it('warns at start-up of hierarchy names the Trellis does not list, leaves them out, and answers a call to one as unknown', async () => {
    const gapped = {
      name: 'gapped',
      match: { model: 'agent-*' },
      hierarchy: ['clock_now', { tool: 'calendar_open', children: ['calendar_read'] }],
    };
    const { client, lines } = await rig.gateway(
      [{ toolCalls: [{ name: 'calendar_open' }] }, { content: 'No calendar here.' }],
      { bindings: [gapped] },
    );
    const warning = {
      level: 'warn',
      message: 'agent-loop hierarchy names tools Trellis does not list; they are left out',
      binding: 'gapped',
      missing: ['calendar_open', 'calendar_read'],
      leftOut: ['calendar_open', 'calendar_read'],
    };
    await eventually(() => expect(lines).toEqual([warning]));

    await client.chat.completions.create(ask());
    expect(rig.model.requests[0].body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'clock_now', description: 'The current time, ISO 8601.', parameters: NO_ARGUMENTS },
      },
    ]);
    expect(rig.toolTexts(1)).toEqual(["tool error: unknown tool 'calendar_open'; valid tools: clock_now"]);
    expect(lines).toEqual([warning]);
  });
});
