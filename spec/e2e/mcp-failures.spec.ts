import type { Script } from '../../fixtures/model-server';
import { eventually } from '../trellis/helpers';
import { ask, mcpRig } from './mcp-gateway';

const binding = (extra: Record<string, unknown> = {}) => ({
  name: 'tools',
  match: { model: 'agent-*' },
  hierarchy: ['notes_open', 'clock_now', 'slow', 'big'],
  ...extra,
});
const turnOf = (body: Parameters<Script>[0]) => body.messages.filter((message) => message.role === 'assistant').length;

describe('a real MCP Trellis failing under the loop: the request never drops', () => {
  const rig = mcpRig();

  it('times a slow tool out after toolTimeoutSec, and the server sees the cancellation', async () => {
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'slow', arguments: { ms: 60_000 } }] }, { content: 'Too slow.' }],
      {
        bindings: [binding({ toolTimeoutSec: 1 })],
      },
    );
    const answer = await client.chat.completions.create(ask());
    expect(answer.choices[0].message.content).toBe('Too slow.');
    expect(rig.toolTexts(1)).toEqual(["tool error: 'slow' timed out after 1s"]);
    await eventually(() => expect(rig.mcp.cancellations).toEqual(['slow']));
    expect(rig.mcp.methods).toContain('notifications/cancelled');
  });

  it('turns a server killed mid-call into transport error texts, and the loop goes on to an answer', async () => {
    const { client } = await rig.gateway(
      [
        { toolCalls: [{ name: 'slow', arguments: { ms: 60_000 } }] },
        { toolCalls: [{ name: 'clock_now' }] },
        { content: 'The tools are down.' },
      ],
      { bindings: [binding()] },
    );
    const answering = client.chat.completions.create(ask()).withResponse();
    await eventually(() => expect(rig.mcp.calls.map((call) => call.name)).toEqual(['slow']));
    await rig.mcp.close();
    const { data, response } = await answering;

    expect(data.choices[0].message.content).toBe('The tools are down.');
    expect(response.headers.get('x-agent-loop-turns')).toBe('3');
    expect(rig.toolTexts(2)).toEqual([
      `tool error: Trellis connection to ${rig.mcp.url} was lost`,
      `tool error: Trellis unreachable at ${rig.mcp.url} (ECONNREFUSED)`,
    ]);
  });

  it('re-initialises a session the server lost between turns, transparently', async () => {
    const restartAfterFirstTurn: Script = async (body) => {
      const turn = turnOf(body);
      if (turn === 1) await rig.mcp.restart();
      return [
        { toolCalls: [{ name: 'clock_now' }] },
        { toolCalls: [{ name: 'notes_open' }] },
        { content: 'Still here.' },
      ][turn];
    };
    const { client } = await rig.gateway(restartAfterFirstTurn, { bindings: [binding()] });
    const answer = await client.chat.completions.create(ask());

    expect(answer.choices[0].message.content).toBe('Still here.');
    expect(rig.toolTexts(2)).toEqual(['2025-01-01T12:00:00.000Z', 'note ids: welcome, groceries, standup']);
    expect(rig.mcp.methods.filter((method) => method === 'initialize')).toHaveLength(2);
  });

  it('cuts a result over maxToolResultBytes, saying how much was cut', async () => {
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'big', arguments: { bytes: 5000 } }] }, { content: 'Long.' }],
      {
        bindings: [binding()],
        maxToolResultBytes: 1024,
      },
    );
    await client.chat.completions.create(ask());
    expect(rig.toolTexts(1)).toEqual([`${'x'.repeat(1024)}\n[truncated: 3976 of 5000 bytes cut]`]);
  });

  it("with 'from-trellis' and a server that never answered, offers no tools and says why a called one is unknown", async () => {
    await rig.mcp.close();
    const { client, lines } = await rig.gateway(
      [{ toolCalls: [{ name: 'notes_open' }] }, { content: 'No tools today.' }],
      {
        bindings: [{ name: 'all', match: { model: 'agent-*' }, hierarchy: 'from-trellis' }],
      },
    );
    const answer = await client.chat.completions.create(ask());
    const reason = `Trellis unreachable at ${rig.mcp.url} (ECONNREFUSED)`;
    expect(answer.choices[0].message.content).toBe('No tools today.');
    expect(rig.model.requests[0].body.tools).toBeUndefined();
    expect(rig.toolTexts(1)).toEqual([
      `tool error: unknown tool 'notes_open'; Trellis has not listed its tools yet (${reason})`,
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message:
          "agent-loop trellis listing failed; it has never listed its tools, so this 'from-trellis' binding offers none until it does",
        reason,
      }),
    );
  });
});
