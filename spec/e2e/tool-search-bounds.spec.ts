import { monitorEventLoopDelay } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { MAX_DEFERRED_BYTES } from '../../lib/tool-search/deferred-limits';
import { bytes, rig } from './tool-search-gateway';

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

  describe('a client deferring more than the loop indexes for one request', () => {
    /** more than MAX_DEFERRED_BYTES of deferred tools' JSON, in few tools */
    const heavy = Array.from({ length: 5 }, (_, i) => ({
      name: `tool_${i}`,
      description: 'x'.repeat(MAX_DEFERRED_BYTES / 4),
      defer_loading: true,
    }));
    const refusal = (deferred: unknown[]) =>
      `agent-loop: too many deferred tools (defer_loading: true) for the loop's tool search: this request has 5 in ${deferred.reduce((sum: number, tool) => sum + bytes(tool), 0)} bytes of JSON, at most 10000 tools and 1048576 bytes per request; defer fewer tools, or shorten their descriptions.`;

    it('gets a 400 in the Messages error shape, with x-agent-loop-stop: deferred-tools', async () => {
      const { anthropic } = await state.gateway();
      const deferred = heavy.map((tool) => ({ ...tool, input_schema: { type: 'object' } }));
      const error = (await anthropic.messages
        .create({
          model: 'claude-sonnet-4-6',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [
            { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
            ...deferred,
          ] as Anthropic.Tool[],
        })
        .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.headers?.get('x-agent-loop-stop')).toBe('deferred-tools');
      expect(error.error).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: refusal(deferred) },
      });
      expect(state.messages.requests).toEqual([]);
    });

    it('gets a 400 in the OpenAI error shape on Responses, with x-agent-loop-stop: deferred-tools', async () => {
      const { openai } = await state.gateway();
      const deferred = heavy.map((tool) => ({ type: 'function', ...tool, parameters: { type: 'object' } }));
      const error = (await openai.responses
        .create({
          model: 'gpt-5',
          input: 'hi',
          tools: [{ type: 'tool_search' }, ...deferred] as unknown as OpenAI.Responses.Tool[],
        })
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.headers?.get('x-agent-loop-stop')).toBe('deferred-tools');
      expect(error.error).toEqual({
        message: refusal(deferred),
        type: 'invalid_request_error',
        param: 'tools',
        code: 'too_many_deferred_tools',
      });
      expect(state.responses.requests).toEqual([]);
    });
  });
});
