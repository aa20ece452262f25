import Anthropic from '@anthropic-ai/sdk';
import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import type OpenAI from 'openai';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';
import type { ScriptedRequest } from '../../lib/testing/script';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require('@google/genai') as typeof GenAI;

/** A call the gateway handed to the client: an approval or a tool's question. */
interface Handed {
  id: string;
  name: string;
  args: Record<string, unknown>;
  kind: 'approval' | 'input';
}
/** What the client answers: an approval's decision, or the person's answer to a question (MCP's `{ action, content }`). */
type Reply =
  | { approve: true }
  | { approve: false; reason: string }
  | { action: 'accept'; content: object }
  | { action: 'decline' };
interface Turn {
  calls: Handed[];
  text: string;
  /** what the client sends back of this answer in its follow-up */
  items: unknown[];
}
/** One wire's official client: a request with `items` as its history, and the items answering handed calls. */
interface Driver {
  send(gateway: Listening, stream: boolean, items: unknown[]): Promise<Turn>;
  answer(calls: Handed[], replies: Reply[]): unknown[];
}

const APPROVE = 'approve_tool_call';
const ASK = 'ask_user';
const open = { type: 'object', properties: {} };
const kindOf = (name: string): Handed['kind'] => (name === ASK ? 'input' : 'approval');
const chatAnswer = (reply: Reply) =>
  JSON.stringify('approve' in reply ? { approved: reply.approve, ...('reason' in reply ? reply : {}) } : reply);

const chat: Driver = {
  async send(gateway, stream, messages) {
    const tools = [APPROVE, ASK].map((name) => ({ type: 'function' as const, function: { name, parameters: open } }));
    const body = { model: 'agent-1', messages: messages as OpenAI.Chat.ChatCompletionMessageParam[], tools };
    const done = stream
      ? await gateway.client.chat.completions.stream(body).finalChatCompletion()
      : await gateway.client.chat.completions.create(body);
    const { message } = done.choices[0];
    const calls = (message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function'
        ? [
            {
              id: call.id,
              name: call.function.name,
              args: JSON.parse(call.function.arguments),
              kind: kindOf(call.function.name),
            },
          ]
        : [],
    );
    return { calls, text: message.content ?? '', items: [message] };
  },
  answer: (calls, replies) =>
    calls.map((call, i) => ({ role: 'tool', tool_call_id: call.id, content: chatAnswer(replies[i]) })),
};

const responses: Driver = {
  async send(gateway, stream, input) {
    const body = {
      model: 'agent-1',
      input: input as OpenAI.Responses.ResponseInputItem[],
      tools: [{ type: 'function' as const, name: ASK, parameters: open, strict: false }],
    };
    const done = stream
      ? await gateway.client.responses.stream(body).finalResponse()
      : await gateway.client.responses.create(body);
    const calls = done.output.flatMap((item): Handed[] => {
      if (item.type === 'function_call')
        return [{ id: item.call_id, name: item.name, args: JSON.parse(item.arguments), kind: 'input' }];
      if (item.type === 'mcp_approval_request')
        return [{ id: item.id, name: item.name, args: JSON.parse(item.arguments), kind: 'approval' }];
      return [];
    });
    return { calls, text: done.output_text, items: done.output };
  },
  answer: (calls, replies) =>
    calls.map((call, i) => {
      const reply = replies[i];
      if ('approve' in reply) return { type: 'mcp_approval_response', approval_request_id: call.id, ...reply };
      return { type: 'function_call_output', call_id: call.id, output: JSON.stringify(reply) };
    }),
};

const messages: Driver = {
  async send(gateway, stream, history) {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: 'sk-ant-test', maxRetries: 0 });
    const body = {
      model: 'agent-1',
      max_tokens: 256,
      messages: history as Anthropic.MessageParam[],
      tools: [APPROVE, ASK].map((name) => ({ name, input_schema: { type: 'object' as const } })),
    };
    const done = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    const calls = done.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [{ id: block.id, name: block.name, args: block.input as Record<string, unknown>, kind: kindOf(block.name) }]
        : [],
    );
    const text = done.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    return { calls, text, items: [{ role: 'assistant', content: done.content }] };
  },
  answer: (calls, replies) => [
    {
      role: 'user',
      content: calls.map((call, i) => ({ type: 'tool_result', tool_use_id: call.id, content: chatAnswer(replies[i]) })),
    },
  ],
};

const gemini: Driver = {
  async send(gateway, stream, contents) {
    const genai = new GoogleGenAI({
      apiKey: 'AIzaSy-client',
      httpOptions: { baseUrl: gateway.url, fetch: (input, init) => fetch(input, init) },
    });
    const request = {
      model: 'agent-1',
      contents: contents as GenAI.Content[],
      config: {
        tools: [{ functionDeclarations: [APPROVE, ASK].map((name) => ({ name, parametersJsonSchema: open })) }],
      },
    };
    const chunks: GenAI.GenerateContentResponse[] = [];
    if (stream) for await (const chunk of await genai.models.generateContentStream(request)) chunks.push(chunk);
    else chunks.push(await genai.models.generateContent(request));
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    const calls = parts.flatMap((part) =>
      part.functionCall
        ? [
            {
              id: part.functionCall.id!,
              name: part.functionCall.name!,
              args: part.functionCall.args ?? {},
              kind: kindOf(part.functionCall.name!),
            },
          ]
        : [],
    );
    const text = parts.map((part) => part.text ?? '').join('');
    return { calls, text, items: [{ role: 'model', parts }] };
  },
  answer: (calls, replies) => [
    {
      role: 'user',
      parts: calls.map((call, i) => ({
        functionResponse: { id: call.id, name: call.name, response: { output: chatAnswer(replies[i]) } },
      })),
    },
  ],
};

const question: Record<string, unknown[]> = {
  chat: [{ role: 'user', content: 'tidy up and pay' }],
  responses: [{ role: 'user', content: 'tidy up and pay' }],
  messages: [{ role: 'user', content: 'tidy up and pay' }],
  gemini: [{ role: 'user', parts: [{ text: 'tidy up and pay' }] }],
};
const drivers = { chat, responses, messages, gemini };
type WireName = keyof typeof drivers;

/** a program reading the weather, dropping a table (approval), then paying (the person's input) */
const TIDY_AND_PAY =
  "const w = await tools.weather({});\nconsole.log('read');\nconst d = await tools.drop_table({});\nconst p = await tools.pay({ amount: 5 });\nreturn { w, d, p };";

/** a program reading the weather, then dropping a table (approval) */
const DROP = 'const w = await tools.weather({});\nconst d = await tools.drop_table({});\nreturn { w, d };';

describe('code mode: a nested call that needs the person hands the program back, and the answer resumes it (official clients, v2 MCP server)', () => {
  let mcp: McpV2FixtureServer;
  let model: ScriptedModel;
  let gateway: Listening;
  /** what the model read last, in its wire's shape, as JSON */
  let lastRead = '';

  async function start(code: string) {
    mcp = await startMcpV2Server({ asks: true });
    model = scriptedModel([
      { toolCalls: [{ name: 'run_code', arguments: { code } }] },
      (request: ScriptedRequest) => {
        lastRead = JSON.stringify(request.history.at(-1));
        return { content: 'Done.' };
      },
    ]);
    await model.ready;
    gateway = await listen(
      buildGateway(model.url, {
        trellis: { mcp: { url: mcp.url } },
        bindings: [
          {
            name: 'ops',
            match: { model: '*' },
            hierarchy: 'from-trellis',
            // a loaded machine slows the nested calls: the program's own deadline is not what these specs test
            codeMode: { timeoutSec: 60 },
            requireApproval: { never: { toolNames: ['weather', 'whoami', 'pay'] } },
          },
        ],
      }).app,
    );
  }
  afterEach(async () => {
    await gateway?.close();
    await model?.close();
    await mcp?.close();
  });
  const ran = (name: string) => mcp.calls.filter((call) => call.name === name).length;
  /** the model read `text` as the program's result (within its wire's JSON: compared unescaped) */
  const read = (text: string) => expect(lastRead.replace(/\\/g, '')).toContain(text);

  it.each([false, true])(
    'a Responses client chained on previous_response_id sends only the approval (stream: %s): the program resumes and the tool runs once',
    async (stream) => {
      await start(DROP);
      const body = { model: 'agent-1', input: 'tidy up', store: true };
      const first = stream
        ? await gateway.client.responses.stream(body).finalResponse()
        : await gateway.client.responses.create(body);
      const request = first.output.find((item) => item.type === 'mcp_approval_request') as
        OpenAI.Responses.ResponseOutputItem.McpApprovalRequest | undefined;
      expect(request?.name).toBe('drop_table');
      expect([ran('weather'), ran('drop_table')]).toEqual([1, 0]);

      const followUp = {
        model: 'agent-1',
        previous_response_id: first.id,
        input: [{ type: 'mcp_approval_response' as const, approval_request_id: request?.id ?? '', approve: true }],
      };
      const answer = stream
        ? await gateway.client.responses.stream(followUp).finalResponse()
        : await gateway.client.responses.create(followUp);
      expect(answer.output_text).toBe('Done.');
      expect([ran('weather'), ran('drop_table')]).toEqual([1, 1]);
      read('{"return":{"w":{"temperature":21.5,"unit":"C"},"d":"dropped"},"log":[]}');
      // the upstream's follow-up is chained on its own reply too, and carries only the program's answer
      const last = model.requests.at(-1)!.body as { previous_response_id?: unknown; input?: { type: string }[] };
      expect(typeof last.previous_response_id).toBe('string');
      expect(last.input?.map((item) => item.type)).toEqual(['function_call_output']);
    },
  );

  describe.each(Object.keys(drivers) as WireName[])('%s', (wire) => {
    const driver = drivers[wire];

    it.each([false, true])(
      'asks approval of a nested call, then the question of the next (stream: %s); each answer resumes the program, and each call runs once',
      async (stream) => {
        await start(TIDY_AND_PAY);
        const first = await driver.send(gateway, stream, question[wire]);
        expect(first.calls.map(({ kind, args }) => [kind, args.tool ?? ''])).toEqual([
          ['approval', wire === 'responses' ? '' : 'drop_table'],
        ]);
        expect(wire === 'responses' ? first.calls[0].name : first.calls[0].args.tool).toBe('drop_table');
        expect([ran('weather'), ran('drop_table')]).toEqual([1, 0]);

        const history = [...question[wire], ...first.items, ...driver.answer(first.calls, [{ approve: true }])];
        const second = await driver.send(gateway, stream, history);
        expect(second.calls.map(({ kind, args }) => [kind, args.tool, args.message])).toEqual([
          ['input', 'pay', 'Pay 5 EUR?'],
        ]);
        expect([ran('weather'), ran('drop_table'), mcp.inputCalls.length]).toEqual([1, 1, 1]);

        const accept = { action: 'accept' as const, content: { confirm: true, account: 'main' } };
        const third = await driver.send(gateway, stream, [
          ...history,
          ...second.items,
          ...driver.answer(second.calls, [accept]),
        ]);
        expect(third.text).toBe('Done.');
        expect(third.calls).toEqual([]);
        expect([ran('weather'), ran('drop_table')]).toEqual([1, 1]);
        read('{"return":{"w":{"temperature":21.5,"unit":"C"},"d":"dropped","p":"paid 5 from main"},"log":["read"]}');
        expect(mcp.inputCalls.map((call) => call.name)).toEqual(['pay', 'pay']);
      },
    );

    it('throws a declined approval into the program, which catches it and goes on', async () => {
      await start(
        'let d;\ntry { d = await tools.drop_table({}); } catch (error) { d = error.message; }\nreturn { d, w: await tools.weather({}) };',
      );
      const first = await driver.send(gateway, false, question[wire]);
      await driver.send(gateway, false, [
        ...question[wire],
        ...first.items,
        ...driver.answer(first.calls, [{ approve: false, reason: 'keep it' }]),
      ]);
      expect([ran('drop_table'), ran('weather')]).toEqual([0, 1]);
      read(
        `{"return":{"d":"tool error: 'drop_table' was not approved: keep it","w":{"temperature":21.5,"unit":"C"}},"log":[]}`,
      );
    });

    it('throws a declined question into the program as a direct call reads it, and the tool does not finish', async () => {
      await start('try { return await tools.pay({ amount: 5 }); } catch (error) { return error.message; }');
      const first = await driver.send(gateway, false, question[wire]);
      expect(first.calls.map(({ kind, args }) => [kind, args.tool])).toEqual([['input', 'pay']]);
      await driver.send(gateway, false, [
        ...question[wire],
        ...first.items,
        ...driver.answer(first.calls, [{ action: 'decline' }]),
      ]);
      expect(mcp.inputCalls).toHaveLength(1);
      read(`{"return":"tool error: 'pay' needed input from the user, who declined","log":[]}`);
    });

    it('refuses a tampered log: the program does not resume and nothing runs', async () => {
      await start(TIDY_AND_PAY);
      const first = await driver.send(gateway, false, question[wire]);
      const [call] = first.calls;
      const at = call.id.indexOf('.ap1.') + 12;
      const forged = `${call.id.slice(0, at)}${call.id[at] === 'A' ? 'B' : 'A'}${call.id.slice(at + 1)}`;
      const items = JSON.parse(JSON.stringify(first.items).split(call.id).join(forged));
      const answer = await driver.send(gateway, false, [
        ...question[wire],
        ...items,
        ...driver.answer([{ ...call, id: forged }], [{ approve: true }]),
      ]);
      expect(answer.text).toBe('Done.');
      expect([ran('weather'), ran('drop_table')]).toEqual([1, 0]);
      read("tool error: the approval of 'drop_table' is not one this gateway asked for; the call did not run");
    });

    it('ends a program that calls otherwise when it resumes with a readable error, and runs nothing twice', async () => {
      await start("await tools.whoami({ tag: String(Date.now()) });\nawait tools.drop_table({});\nreturn 'dropped';");
      const first = await driver.send(gateway, false, question[wire]);
      await driver.send(gateway, false, [
        ...question[wire],
        ...first.items,
        ...driver.answer(first.calls, [{ approve: true }]),
      ]);
      expect([ran('whoami'), ran('drop_table')]).toEqual([1, 0]);
      read(
        "tool error: run_code: when the program resumed, its call 1 was 'whoami' with other arguments than before; nothing ran again",
      );
    });
  });
});
