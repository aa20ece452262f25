import path from 'node:path';
import { notesWalk } from '../../fixtures/demo-model';
import { javascript } from '../helpers/javascript';
import { ask, mcpRig } from './mcp-gateway';

const STDIO_SERVER = path.join(__dirname, '../../fixtures/mcp-stdio-server.ts');
const stdio = { mcp: { command: process.execPath, args: [javascript(STDIO_SERVER)] } };
const notes = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now'],
};

describe('the loop over an MCP Trellis run as a child process (stdio)', () => {
  const rig = mcpRig();

  it("lists, gates and calls the child's tools through a whole loop", async () => {
    const { client } = await rig.gateway(notesWalk, { trellis: stdio, bindings: [notes] });
    const { data, response } = await client.chat.completions.create(ask('when is standup?')).withResponse();

    expect(data.choices[0].message.content).toBe(
      "Let me look in your notes.\n\nThe notebook has to be opened first.\n\nYour note 'standup' says: Standup moved to 9:30 on Thursdays; bring the release checklist. (checked at 2025-01-01T12:00:00.000Z)",
    );
    expect(response.headers.get('x-agent-loop-turns')).toBe('4');
    expect(
      (rig.model.requests[0].body.tools as { function: { description: string } }[]).map(
        (tool) => tool.function.description,
      ),
    ).toEqual([
      'Open the notebook and list the ids of its notes.',
      'Read one note by id (open the notebook first).',
      'The current time, ISO 8601.',
    ]);
    expect(rig.toolTexts(3)[0]).toBe("⛔ 'notes_read' is locked: call 'notes_open' first.");
  });

  it('times a call out and keeps going when the child is slow', async () => {
    const slow = { ...notes, hierarchy: ['slow'], toolTimeoutSec: 1 };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'slow', arguments: { ms: 60_000 } }] }, { content: 'Gave up.' }],
      { trellis: stdio, bindings: [slow] },
    );
    const answer = await client.chat.completions.create(ask());
    expect(answer.choices[0].message.content).toBe('Gave up.');
    expect(rig.toolTexts(1)).toEqual(["tool error: 'slow' timed out after 1s"]);
  });
});
