import { monitorEventLoopDelay } from 'node:perf_hooks';
import type Anthropic from '@anthropic-ai/sdk';
import { rig } from './tool-search-gateway';

/** far more than a bounded search holds the event loop, far less than the 8.2 s the unbounded one did */
const BLOCKED_MS = 1_000;

describe('tool search bounds', () => {
  const state = rig();

  it('answers a regex search too costly for a 40 KB deferred tool with a readable refusal, without freezing the gateway', async () => {
    state.messages.setScript([
      { toolUses: [{ id: 'toolu_search', name: 'tool_search', input: { query: '(?:a?.|.b?){0,1000}QQ' } }] },
      { text: 'No such tool.' },
    ]);
    const { anthropic } = await state.gateway();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'find the notes tool' }],
      tools: [
        { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
        {
          name: 'notes',
          description: 'ab'.repeat(20_000),
          input_schema: { type: 'object' },
          defer_loading: true,
        },
      ] as Anthropic.Tool[],
    });
    delay.disable();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'No such tool.' })]);
    expect(state.messages.requests[1].body.messages.at(-1)!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_search',
        content:
          'tool error: \'tool_search\' cannot search: the pattern is too complex: its repetition counts such as {0,100} come to 1000 copies (nested counts multiply), at most 100; use a simpler pattern, e.g. "pull_request|merge"',
        is_error: true,
      },
    ]);
    expect(delay.max / 1e6).toBeLessThan(BLOCKED_MS);
  });
});
