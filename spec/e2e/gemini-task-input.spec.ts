import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { geminiRig, type GeminiGateway } from './gemini-gateway';

const model = 'gemini-2.5-flash';
const greeter = { name: 'greeter', match: { model: 'gemini-*' }, hierarchy: 'from-trellis' as const };
const tools = [{ functionDeclarations: [{ name: 'ask_user', parametersJsonSchema: { type: 'object' } }] }];
const question: GenAI.Content = { role: 'user', parts: [{ text: 'greet me' }] };

describe('an MCP task that asks the person over Gemini (@google/genai, tasks server)', () => {
  const rig = geminiRig();
  let tasks: McpTasksFixtureServer;
  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());

  /** generateContent (JSON) or generateContentStream (SSE): the parts the client gets, as one model content */
  async function ask(gw: GeminiGateway, stream: boolean, contents: GenAI.Content[]): Promise<GenAI.Part[]> {
    if (!stream)
      return (await gw.genai.models.generateContent({ model, contents, config: { tools } })).candidates?.[0]?.content
        ?.parts as GenAI.Part[];
    const parts: GenAI.Part[] = [];
    for await (const chunk of await gw.genai.models.generateContentStream({ model, contents, config: { tools } }))
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    return parts;
  }

  it.each([false, true])(
    'hands the question out as a functionCall; its functionResponse resumes the task (stream: %s)',
    async (stream) => {
      const gw = await rig.gateway([{ calls: [{ name: 'ask_name' }] }, { text: 'Greeted.' }], {
        trellis: { mcp: { url: tasks.url } },
        bindings: [greeter],
      });
      const handed = await ask(gw, stream, [question]);
      const call = handed.find((part) => part.functionCall)?.functionCall as GenAI.FunctionCall;
      expect(call.name).toBe('ask_user');
      expect(call.id).toMatch(/\.in1\./);
      expect(call.args).toMatchObject({ tool: 'ask_name', message: 'Please enter your name.', mode: 'form' });

      const output = { action: 'accept', content: { name: 'Grace' } };
      const final = await ask(gw, stream, [
        question,
        { role: 'model', parts: handed },
        { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output } } }] },
      ]);
      expect(final.map((part) => part.text ?? '').join('')).toBe('Greeted.');
      expect(rig.upstream.requests[1].refused).toBeUndefined();
      expect(rig.lastParts(1)).toEqual([
        { functionResponse: { name: 'ask_name', response: { output: 'Hello, Grace.' } } },
      ]);
      expect(tasks.requests.map((request) => request.method)).toEqual([
        'tools/call',
        'tasks/get',
        'tasks/update',
        'tasks/get',
      ]);
    },
  );
});
