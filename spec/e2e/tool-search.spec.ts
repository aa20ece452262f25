import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { MessagesStep } from '../../fixtures/messages-server';
import type { ScriptStep } from '../../fixtures/model-server';
import type { ResponsesStep } from '../../fixtures/responses-server';
import { bytes, codexTools, expectAppendedOnly, names, NOT_LOADED, QUERY, rig } from './tool-search-gateway';

describe('tool search, served by the loop', () => {
  const state = rig();

  describe.each([false, true])('chat completions with the openai client (stream: %s)', (stream) => {
    /** turn 1: search, and call a tool not loaded yet; turn 2: the first tool found; turn 3: the answer */
    const script = (body: { messages: { role: string; content?: unknown }[] }): ScriptStep => {
      const turn = body.messages.filter((m) => m.role === 'assistant').length;
      if (turn === 0)
        return {
          toolCalls: [
            { id: 'call_search', name: 'tool_search', arguments: { query: QUERY } },
            { id: 'call_early', name: 'merge_pull_request', arguments: {} },
          ],
        };
      if (turn === 1) {
        const found = JSON.parse(body.messages.find((m) => m.role === 'tool')!.content as string) as { name: string }[];
        return {
          toolCalls: [
            {
              id: 'call_found',
              name: found[0].name,
              arguments: { owner: 'o', repo: 'r', title: 't', head: 'f', base: 'main' },
            },
          ],
        };
      }
      return { content: 'The pull request is open.' };
    };

    async function ask(openai: OpenAI): Promise<string> {
      const request = {
        model: 'agent-1',
        messages: [{ role: 'user' as const, content: 'open a pull request from my branch' }],
      };
      if (!stream) return (await openai.chat.completions.create(request)).choices[0].message.content ?? '';
      let text = '';
      for await (const chunk of await openai.chat.completions.create({ ...request, stream: true }))
        text += chunk.choices[0]?.delta?.content ?? '';
      return text;
    }

    it('offers tool_search alone, answers it with { name, description }, loads what it found and runs it; a tool not loaded runs nothing', async () => {
      state.model.setScript(script);
      const { openai } = await state.gateway();
      expect(await ask(openai)).toContain('The pull request is open.');
      const [first, second, third] = state.model.requests.map((request) => request.body);
      expect(names(first.tools)).toEqual(['tool_search']);
      const answers = second.messages.filter((m) => m.role === 'tool');
      const found = JSON.parse(answers[0].content as string) as { name: string; description: string }[];
      expect(found.length).toBeLessThanOrEqual(5);
      expect(found[0]).toEqual({
        name: 'create_pull_request',
        description: 'Create a new pull request in a GitHub repository',
      });
      expect(answers[1]).toMatchObject({ tool_call_id: 'call_early', content: NOT_LOADED });
      expect(names(second.tools)).toEqual(['tool_search', ...found.map((tool) => tool.name)]);
      expect(third.messages.filter((m) => m.role === 'tool').at(-1)).toMatchObject({
        tool_call_id: 'call_found',
        content: 'ran create_pull_request',
      });
      expectAppendedOnly([first.tools, second.tools, third.tools]);
      expect(state.calls).toEqual(['create_pull_request']);
    });
  });

  it("turn 1's request for a 300-tool binding is at most 10% of the bytes of offering every tool", async () => {
    state.model.setScript([{ content: 'hi' }]);
    const withSearch = await state.gateway();
    await withSearch.openai.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'hi' }] });
    const offeringAll = await state.gateway({ toolSearch: false });
    await offeringAll.openai.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'hi' }] });
    const [searched, all] = state.model.requests.map((request) => request.body);
    expect(names(all.tools)).toHaveLength(300);
    const ratio = bytes(searched) / bytes(all);
    process.stdout.write(
      `tool search: turn 1 of a 300-tool binding ${bytes(searched)} bytes, ${bytes(all)} offering every tool (${(ratio * 100).toFixed(2)}%)\n`,
    );
    expect(ratio).toBeLessThanOrEqual(0.1);
  });

  it('offers every tool when the binding has no more than `above`, and keeps `keep` from turn 1 on', async () => {
    state.model.setScript([{ content: 'hi' }]);
    const few = await state.gateway({ toolSearch: { above: 300 } });
    await few.openai.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'hi' }] });
    const kept = await state.gateway({
      bindings: [
        {
          name: 'catalog',
          match: { model: '*' },
          hierarchy: 'from-trellis',
          toolSearch: { keep: ['read_file', 'write_file'], maxResults: 2 },
        },
      ],
    });
    await kept.openai.chat.completions.create({ model: 'agent-1', messages: [{ role: 'user', content: 'hi' }] });
    const [all, keep] = state.model.requests.map((request) => request.body);
    expect(names(all.tools)).toHaveLength(300);
    expect(names(keep.tools)).toEqual(['read_file', 'write_file', 'tool_search']);
    expect((keep.tools as { function: { description: string } }[])[2].function.description).toContain('up to 2 tools');
  });

  describe.each([false, true])('Responses with the openai client (stream: %s)', (stream) => {
    async function ask(openai: OpenAI, tools?: unknown[]): Promise<OpenAI.Responses.Response> {
      const request = {
        model: 'gpt-5',
        input: 'open a pull request from my branch',
        ...(tools ? { tools: tools as OpenAI.Responses.Tool[] } : {}),
      };
      if (!stream) return openai.responses.create(request);
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of await openai.responses.create({ ...request, stream: true }))
        if (event.type === 'response.completed') completed = event.response;
      return completed!;
    }

    it("serves the binding's tools: tool_search, then the tool found", async () => {
      state.responses.setScript((request): ResponsesStep => {
        if (request.turn === 0)
          return {
            calls: [
              { callId: 'call_search', name: 'tool_search', arguments: { query: QUERY } },
              { callId: 'call_early', name: 'merge_pull_request' },
            ],
          };
        if (request.turn === 1)
          return { calls: [{ callId: 'call_found', name: 'create_pull_request', arguments: {} }] };
        return { text: 'The pull request is open.' };
      });
      const { openai } = await state.gateway();
      const { output } = await ask(openai);
      expect(
        output
          .flatMap((item) =>
            item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')) : [],
          )
          .join(''),
      ).toBe('The pull request is open.');
      const [first, second, third] = state.responses.requests.map((request) => request.body);
      expect(first.tools).toEqual([
        {
          type: 'function',
          name: 'tool_search',
          description: expect.stringContaining('Finds tools'),
          parameters: expect.objectContaining({ required: ['query'] }),
          strict: false,
        },
      ]);
      const outputs = (second.input as Record<string, unknown>[]).filter(
        (item) => item.type === 'function_call_output',
      );
      expect(JSON.parse(outputs[0].output as string)[0].name).toBe('create_pull_request');
      expect(outputs[1]).toMatchObject({ call_id: 'call_early', output: NOT_LOADED });
      expect(names(second.tools)).toContain('create_pull_request');
      expectAppendedOnly([first.tools, second.tools, third.tools]);
      expect(state.calls).toEqual(['create_pull_request']);
    });

    it("serves a Codex-style tool_search over the client's defer_loading tools and hands the tool found back", async () => {
      const { shell, patch, plan } = codexTools;
      state.responses.setScript((request): ResponsesStep =>
        request.turn === 0
          ? { calls: [{ callId: 'call_search', name: 'tool_search', arguments: { query: 'run a shell command' } }] }
          : { calls: [{ callId: 'call_shell', name: 'shell', arguments: { command: ['ls'] } }] },
      );
      const { openai } = await state.gateway({
        bindings: [{ name: 'catalog', match: { model: '*' }, hierarchy: ['read_file'] }],
      });
      const response = await ask(openai, [
        { type: 'tool_search' },
        plan,
        { ...shell, defer_loading: true },
        { ...patch, defer_loading: true },
      ]);
      expect(
        response.output.filter((item) => item.type === 'function_call').map((item) => (item as { name: string }).name),
      ).toEqual(['shell']);
      const [first, second] = state.responses.requests.map((request) => request.body);
      expect(names(first.tools)).toEqual(['read_file', 'update_plan', 'tool_search']);
      expect(JSON.stringify(first.tools)).not.toMatch(/defer_loading|"type":"tool_search"/);
      const found = JSON.parse(
        (second.input as Record<string, unknown>[]).find((item) => item.type === 'function_call_output')!
          .output as string,
      ) as { name: string }[];
      expect(found[0]).toEqual({ name: 'shell', description: 'Runs a shell command and returns its output' });
      expect((second.tools as unknown[]).slice(3)).toEqual([shell, ...(found.length > 1 ? [patch] : [])]);
      expect(state.calls).toEqual([]);
    });
  });

  describe.each([false, true])('Messages with @anthropic-ai/sdk (stream: %s)', (stream) => {
    const weather = {
      name: 'get_weather',
      description: 'Get the weather forecast for a city',
      input_schema: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const stocks = {
      name: 'get_stock_price',
      description: 'Get the price of a stock',
      input_schema: { type: 'object', properties: { ticker: { type: 'string' } } },
    };

    async function ask(anthropic: Anthropic, tools: unknown[]): Promise<Anthropic.Message> {
      const request = {
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: [{ role: 'user' as const, content: 'weather in Berlin?' }],
        tools: tools as Anthropic.Tool[],
      };
      return stream ? anthropic.messages.stream(request).finalMessage() : anthropic.messages.create(request);
    }

    it.each([
      ['tool_search_tool_bm25_20251119', 'tool_search_tool_bm25', 'weather forecast'],
      ['tool_search_tool_regex_20251119', 'tool_search_tool_regex', 'weather|forecast'],
    ])("serves %s over the client's defer_loading tools and hands the tool found back", async (type, name, query) => {
      const steps: MessagesStep[] = [
        { toolUses: [{ id: 'toolu_search', name: 'tool_search', input: { query } }] },
        { toolUses: [{ id: 'toolu_weather', name: 'get_weather', input: { city: 'Berlin' } }] },
      ];
      state.messages.setScript(
        (body) => steps[Math.min(body.messages.filter((m) => m.role === 'assistant').length, 1)],
      );
      const { anthropic } = await state.gateway({
        bindings: [{ name: 'catalog', match: { model: '*' }, hierarchy: ['read_file'] }],
      });
      const message = await ask(anthropic, [
        { type, name },
        { ...weather, defer_loading: true },
        { ...stocks, defer_loading: true },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(
        message.content
          .filter((block) => block.type === 'tool_use')
          .map((block) => (block as Anthropic.ToolUseBlock).name),
      ).toEqual(['get_weather']);
      const [first, second] = state.messages.requests.map((request) => request.body);
      expect(names(first.tools)).toEqual(['read_file', 'tool_search']);
      expect(JSON.stringify(first.tools)).not.toMatch(/defer_loading|tool_search_tool_/);
      const results = (second.messages.at(-1)!.content as { type: string; content: string }[]).filter(
        (block) => block.type === 'tool_result',
      );
      expect(JSON.parse(results[0].content)[0]).toEqual({
        name: 'get_weather',
        description: 'Get the weather forecast for a city',
      });
      expect((second.tools as unknown[]).slice(2)[0]).toEqual(weather);
      expect(state.calls).toEqual([]);
    });

    it("serves the binding's tools behind tool_search", async () => {
      const steps: MessagesStep[] = [
        {
          toolUses: [
            { id: 'toolu_search', name: 'tool_search', input: { query: QUERY } },
            { id: 'toolu_early', name: 'merge_pull_request', input: {} },
          ],
        },
        { toolUses: [{ id: 'toolu_found', name: 'create_pull_request', input: {} }] },
        { text: 'The pull request is open.' },
      ];
      state.messages.setScript(
        (body) => steps[Math.min(body.messages.filter((m) => m.role === 'assistant').length, 2)],
      );
      const { anthropic } = await state.gateway();
      const message = await ask(anthropic, []);
      expect(
        message.content.filter((block) => block.type === 'text').map((block) => (block as Anthropic.TextBlock).text),
      ).toContain('The pull request is open.');
      const [first, second, third] = state.messages.requests.map((request) => request.body);
      expect(names(first.tools)).toEqual(['tool_search']);
      const results = second.messages.at(-1)!.content as { tool_use_id: string; content: string; is_error?: boolean }[];
      expect(results[1]).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_early',
        content: NOT_LOADED,
        is_error: true,
      });
      expectAppendedOnly([first.tools, second.tools, third.tools]);
      expect(state.calls).toEqual(['create_pull_request']);
    });
  });

  it("passes a client's own tool search upstream unchanged with toolSearch: { native: true }", async () => {
    state.messages.setScript([{ text: 'hi' }]);
    const { anthropic } = await state.gateway({
      bindings: [{ name: 'catalog', match: { model: '*' }, hierarchy: ['read_file'], toolSearch: { native: true } }],
    });
    const tools = [
      { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
      { name: 'get_weather', description: 'Weather', input_schema: { type: 'object' }, defer_loading: true },
    ];
    await anthropic.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools as Anthropic.Tool[],
    });
    expect(state.messages.requests[0].body.tools).toEqual([expect.objectContaining({ name: 'read_file' }), ...tools]);
  });
});
