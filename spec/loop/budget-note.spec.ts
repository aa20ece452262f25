import { ask, mcpRig } from '../e2e/mcp-gateway';

const clock = { name: 'clock', match: { model: 'agent-*' }, hierarchy: ['clock_now'] };
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const looking = { content: 'Looking.', toolCalls: [{ name: 'clock_now' }], usage };
const NOTE = '[agent-loop] Stopped before a final answer: the token budget ran out (maxTokensPerLoop = 300, 360 used).';

describe('the token budget (maxTokensPerLoop), over a real MCP Trellis', () => {
  const rig = mcpRig();

  it('stops once the summed total_tokens reach it: the answer so far, the note, x-agent-loop-stop: tokens', async () => {
    const { client } = await rig.gateway([looking, looking, looking, { content: 'never reached' }], {
      bindings: [clock],
      maxTokensPerLoop: 300,
    });
    const { data, response } = await client.chat.completions.create(ask('what time is it?')).withResponse();

    expect(rig.model.requests).toHaveLength(3);
    expect(rig.mcp.calls).toHaveLength(2);
    expect(response.headers.get('x-agent-loop-stop')).toBe('tokens');
    expect(data.choices[0].message).toEqual({
      role: 'assistant',
      content: `Looking.\n\nLooking.\n\nLooking.\n\n${NOTE}`,
    });
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage).toEqual({ prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 });
  });

  it('stops a streamed answer too, asking the upstream for usage on every turn', async () => {
    const { client } = await rig.gateway([looking, looking, looking, { content: 'never reached' }], {
      bindings: [clock],
      maxTokensPerLoop: 300,
    });
    const stream = await client.chat.completions.create({ ...ask(), stream: true });
    let text = '';
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }

    expect(text).toBe(`Looking.\n\nLooking.\n\nLooking.\n\n${NOTE}`);
    expect(finishes).toEqual(['stop']);
    expect(rig.model.requests.map((request) => request.body.stream_options)).toEqual([
      { include_usage: true },
      { include_usage: true },
      { include_usage: true },
    ]);
  });

  it('is tunable at run time and off by default; a final answer is never cut', async () => {
    const { client, loop } = await rig.gateway([looking, looking, { content: 'Noon.', usage }], { bindings: [clock] });
    const unlimited = await client.chat.completions.create(ask()).withResponse();
    expect(unlimited.response.headers.get('x-agent-loop-stop')).toBe('final');
    expect(rig.model.requests[0].body.stream_options).toBeUndefined();

    expect(loop.settings.update({ maxTokensPerLoop: 360 })).toEqual(expect.objectContaining({ maxTokensPerLoop: 360 }));
    const { data, response } = await client.chat.completions.create(ask()).withResponse();
    expect(response.headers.get('x-agent-loop-stop')).toBe('final');
    expect(data.choices[0].message.content).toBe('Looking.\n\nLooking.\n\nNoon.');

    loop.settings.update({ maxTokensPerLoop: 120 });
    const cut = await client.chat.completions.create(ask()).withResponse();
    expect(cut.response.headers.get('x-agent-loop-stop')).toBe('tokens');
    expect(cut.data.choices[0].message.content).toBe(
      'Looking.\n\n[agent-loop] Stopped before a final answer: the token budget ran out (maxTokensPerLoop = 120, 120 used).',
    );

    loop.settings.update({ maxTokensPerLoop: undefined });
    expect(loop.settings.get().maxTokensPerLoop).toBeUndefined();
    const again = await client.chat.completions.create(ask()).withResponse();
    expect(again.response.headers.get('x-agent-loop-stop')).toBe('final');
  });
});
