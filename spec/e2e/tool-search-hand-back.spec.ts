import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { MessagesStep } from '../../fixtures/messages-server';
import type { ScriptStep } from '../../fixtures/model-server';
import type { ResponsesStep } from '../../fixtures/responses-server';
import { codexTools, names, QUERY, rig } from './tool-search-gateway';

const PR = { owner: 'o', repo: 'r', title: 't', head: 'f', base: 'main' };
const DONE = 'The pull request is open.';
const LOCATION = { type: 'object', properties: {} };
const notLoaded = (name: string) => `tool error: '${name}' is not loaded: call tool_search first`;

/** The upstream's replies in order: search, call the client's tool (handed back), then, in the follow-up, the tool found. */
function inOrder<Step>(steps: Step[]): () => Step {
  let at = 0;
  return () => steps[Math.min(at++, steps.length - 1)];
}

/** The follow-up's first request offers the last request's tools, byte for byte: the prompt cache holds across it. */
function expectCarried(requests: Record<string, unknown>[]) {
  expect(requests).toHaveLength(4);
  expect(JSON.stringify(requests[2].tools)).toBe(JSON.stringify(requests[1].tools));
  expect(names(requests[2].tools)).toContain('create_pull_request');
}

/** A token of another's making: one character of the sealed part changed. */
const tampered = (id: string) => `${id.slice(0, -3)}${id.at(-3) === 'A' ? 'B' : 'A'}${id.slice(-2)}`;

describe('a hand-back carries the tools a tool search loaded', () => {
  const state = rig();

  describe.each([false, true])('chat completions with the openai client (stream: %s)', (stream) => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'get_location', description: "The user's location", parameters: LOCATION },
      },
    ];
    const user = { role: 'user' as const, content: 'open a pull request from my branch' };

    async function ask(openai: OpenAI, messages: OpenAI.Chat.ChatCompletionMessageParam[]) {
      const request = { model: 'agent-1', messages, tools };
      return stream
        ? openai.chat.completions.stream(request).finalChatCompletion()
        : openai.chat.completions.create(request);
    }

    async function handedBack(openai: OpenAI): Promise<OpenAI.Chat.ChatCompletionMessageFunctionToolCall> {
      const handed = (await ask(openai, [user])).choices[0].message;
      expect(handed.tool_calls?.map((call) => (call as { function: { name: string } }).function.name)).toEqual([
        'get_location',
      ]);
      return handed.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    }

    const followUp = (
      call: OpenAI.Chat.ChatCompletionMessageFunctionToolCall,
    ): OpenAI.Chat.ChatCompletionMessageParam[] => [
      user,
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: 'Berlin' },
    ];

    it("offers what was loaded from the follow-up's first turn on, in the same order", async () => {
      state.model.setScript(
        inOrder<ScriptStep>([
          { toolCalls: [{ id: 'call_search', name: 'tool_search', arguments: { query: QUERY } }] },
          { toolCalls: [{ id: 'call_loc', name: 'get_location', arguments: {} }] },
          { toolCalls: [{ id: 'call_pr', name: 'create_pull_request', arguments: PR }] },
          { content: DONE },
        ]),
      );
      const { openai } = await state.gateway();
      const answer = await ask(openai, followUp(await handedBack(openai)));
      expect(answer.choices[0].message.content).toBe(DONE);
      expectCarried(state.model.requests.map((request) => request.body));
      expect(state.calls).toEqual(['create_pull_request']);
    });

    it('loads nothing from a token that does not verify', async () => {
      state.model.setScript(
        inOrder<ScriptStep>([
          { toolCalls: [{ id: 'call_search', name: 'tool_search', arguments: { query: QUERY } }] },
          { toolCalls: [{ id: 'call_loc', name: 'get_location', arguments: {} }] },
          { toolCalls: [{ id: 'call_pr', name: 'create_pull_request', arguments: PR }] },
          { content: DONE },
        ]),
      );
      const { openai } = await state.gateway();
      const call = await handedBack(openai);
      await ask(openai, followUp({ ...call, id: tampered(call.id) }));
      const requests = state.model.requests.map((request) => request.body);
      expect(names(requests[2].tools)).toEqual(['get_location', 'tool_search']);
      expect(requests[3].messages.at(-1)).toMatchObject({ role: 'tool', content: notLoaded('create_pull_request') });
      expect(state.calls).toEqual([]);
    });
  });

  describe.each([false, true])('Responses with the openai client (stream: %s)', (stream) => {
    const user = { role: 'user' as const, content: 'open a pull request from my branch' };

    async function ask(openai: OpenAI, input: OpenAI.Responses.ResponseInput, tools: unknown[]) {
      const request = { model: 'gpt-5', input, tools: tools as OpenAI.Responses.Tool[] };
      if (!stream) return openai.responses.create(request);
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of await openai.responses.create({ ...request, stream: true }))
        if (event.type === 'response.completed') completed = event.response;
      return completed!;
    }

    /** The client's follow-up, as Codex sends it: its whole input again, the call handed back and its output. */
    async function followUp(openai: OpenAI, tools: unknown[], output: string) {
      const handed = await ask(openai, [user], tools);
      const call = handed.output.find((item) => item.type === 'function_call')!;
      return ask(openai, [user, call, { type: 'function_call_output', call_id: call.call_id, output }], tools);
    }

    it("offers the binding's tools loaded from the follow-up's first turn on, in the same order", async () => {
      state.responses.setScript(
        inOrder<ResponsesStep>([
          { calls: [{ callId: 'call_search', name: 'tool_search', arguments: { query: QUERY } }] },
          { calls: [{ callId: 'call_loc', name: 'get_location' }] },
          { calls: [{ callId: 'call_pr', name: 'create_pull_request', arguments: PR }] },
          { text: DONE },
        ]),
      );
      const { openai } = await state.gateway();
      const tools = [{ type: 'function', name: 'get_location', parameters: LOCATION, strict: false }];
      const { output } = await followUp(openai, tools, 'Berlin');
      expect(output).toEqual([
        expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: DONE })] }),
      ]);
      expectCarried(state.responses.requests.map((request) => request.body));
      expect(state.calls).toEqual(['create_pull_request']);
    });

    it("carries a Codex-style tool_search's client tools found into the follow-up", async () => {
      const { shell, patch, plan } = codexTools;
      state.responses.setScript(
        inOrder<ResponsesStep>([
          { calls: [{ callId: 'call_search', name: 'tool_search', arguments: { query: 'run a shell command' } }] },
          { calls: [{ callId: 'call_shell', name: 'shell', arguments: { command: ['ls'] } }] },
          { calls: [{ callId: 'call_shell2', name: 'shell', arguments: { command: ['cat', 'a.txt'] } }] },
        ]),
      );
      const { openai } = await state.gateway({
        bindings: [{ name: 'catalog', match: { model: '*' }, hierarchy: ['read_file'] }],
      });
      const tools = [
        { type: 'tool_search' },
        plan,
        { ...shell, defer_loading: true },
        { ...patch, defer_loading: true },
      ];
      const second = await followUp(openai, tools, 'a.txt b.txt');
      expect(second.output.filter((item) => item.type === 'function_call').map((item) => item.name)).toEqual(['shell']);
      const requests = state.responses.requests.map((request) => request.body);
      expect(requests).toHaveLength(3);
      expect(JSON.stringify(requests[2].tools)).toBe(JSON.stringify(requests[1].tools));
      expect(names(requests[2].tools)).toContain('shell');
      expect(JSON.stringify(requests[2].tools)).not.toMatch(/defer_loading|"type":"tool_search"/);
    });
  });

  describe.each([false, true])('Messages with @anthropic-ai/sdk (stream: %s)', (stream) => {
    const user = { role: 'user' as const, content: 'open a pull request from my branch' };
    const tools = [{ name: 'get_location', description: "The user's location", input_schema: LOCATION }];

    async function ask(anthropic: Anthropic, messages: Anthropic.MessageParam[]): Promise<Anthropic.Message> {
      const request = { model: 'claude-sonnet-4-6', max_tokens: 1024, messages, tools: tools as Anthropic.Tool[] };
      return stream ? anthropic.messages.stream(request).finalMessage() : anthropic.messages.create(request);
    }

    it("offers what was loaded from the follow-up's first turn on, in the same order", async () => {
      state.messages.setScript(
        inOrder<MessagesStep>([
          { toolUses: [{ id: 'toolu_search', name: 'tool_search', input: { query: QUERY } }] },
          { toolUses: [{ id: 'toolu_loc', name: 'get_location', input: {} }] },
          { toolUses: [{ id: 'toolu_pr', name: 'create_pull_request', input: PR }] },
          { text: DONE },
        ]),
      );
      const { anthropic } = await state.gateway();
      const handed = await ask(anthropic, [user]);
      const use = handed.content.find((block) => block.type === 'tool_use')!;
      const answer = await ask(anthropic, [
        user,
        { role: 'assistant', content: handed.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Berlin' }] },
      ]);
      expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: DONE })]);
      expectCarried(state.messages.requests.map((request) => request.body));
      expect(state.calls).toEqual(['create_pull_request']);
    });
  });
});
