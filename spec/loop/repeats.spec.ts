import { memoryLogger } from '../helpers/memory-logger';
import { ask, mcpRig } from '../e2e/mcp-gateway';

const clock = { name: 'clock', match: { model: 'agent-*' }, hierarchy: ['clock_now', 'big'] };
const REPEATED = (n: number) =>
  `tool error: 'clock_now' was already called with these arguments ${n} times; use the earlier result or change the arguments`;
const NOON = '2025-01-01T12:00:00.000Z';

describe('repeated identical calls, over a real MCP Trellis', () => {
  const rig = mcpRig();

  it('runs the same tool with the same arguments (in any key order) maxRepeatedCalls times, then refuses it readably', async () => {
    const { client, lines } = await rig.gateway(
      [
        {
          toolCalls: [
            { id: 'a1', name: 'clock_now', arguments: { zone: 'utc', fmt: 'iso' } },
            { id: 'a2', name: 'clock_now', arguments: { fmt: 'iso', zone: 'utc' } },
          ],
        },
        {
          toolCalls: [
            { id: 'b1', name: 'clock_now', arguments: '{"zone":"utc","fmt":"iso"}' },
            { id: 'b2', name: 'clock_now', arguments: { fmt: 'iso', zone: 'cet' } },
          ],
        },
        { toolCalls: [{ id: 'c1', name: 'clock_now', arguments: { fmt: 'iso', zone: 'utc' } }] },
        { content: 'It is noon.' },
      ],
      { bindings: [clock] },
    );
    const { data, response } = await client.chat.completions.create(ask('what time is it?')).withResponse();

    expect(data.choices[0].message.content).toBe('It is noon.');
    expect(rig.mcp.calls).toHaveLength(4);
    expect(rig.toolTexts(3)).toEqual([NOON, NOON, NOON, NOON, REPEATED(3)]);
    expect(response.headers.get('x-agent-loop-repeated')).toBe('1');
    expect(response.headers.get('x-agent-loop-tool-calls')).toBe('5');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop refused a repeated tool call',
        tool: 'clock_now',
        binding: 'clock',
      }),
    );
  });

  it('counts only this loop: the same calls in the client history do not count, and maxRepeatedCalls is configurable', async () => {
    const earlier = ['h1', 'h2'].flatMap((id) => [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id, type: 'function' as const, function: { name: 'clock_now', arguments: '{}' } }],
      },
      { role: 'tool' as const, tool_call_id: id, content: NOON },
    ]);
    const steps = [
      { toolCalls: [{ id: 'x', name: 'clock_now' }] },
      { toolCalls: [{ id: 'y', name: 'clock_now' }] },
      { content: 'Still noon.' },
    ];
    const { client } = await rig.gateway(() => steps[rig.model.requests.length - 1], {
      bindings: [clock],
      maxRepeatedCalls: 1,
    });
    const { messages } = ask('and now?');
    const { data, response } = await client.chat.completions
      .create({ model: 'agent-1', messages: [...messages, ...earlier, { role: 'user', content: 'again' }] })
      .withResponse();

    expect(data.choices[0].message.content).toBe('Still noon.');
    expect(rig.mcp.calls).toHaveLength(1);
    expect(rig.toolTexts(2).slice(-2)).toEqual([NOON, REPEATED(1)]);
    expect(response.headers.get('x-agent-loop-repeated')).toBe('1');
  });

  it("counts refused repeats in the loop's log line, where a streamed answer has its counters", async () => {
    const { logger, lines } = memoryLogger('info');
    const again = { toolCalls: [{ name: 'clock_now' }] };
    const { client } = await rig.gateway([again, again, again, { content: 'Noon.' }], {
      bindings: [clock],
      maxRepeatedCalls: 2,
      logger,
    });
    const stream = await client.chat.completions.create({ ...ask(), stream: true });
    for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    expect(rig.toolTexts(3)).toEqual([NOON, NOON, REPEATED(2)]);
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'agent-loop answered', stream: true, repeated: 1, elided: 0, toolCalls: 3 }),
    );
  });

  it('says x-agent-loop-repeated: 0 when nothing repeated', async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'Noon.' }], {
      bindings: [clock],
    });
    const { response } = await client.chat.completions.create(ask()).withResponse();
    expect(response.headers.get('x-agent-loop-repeated')).toBe('0');
  });
});
