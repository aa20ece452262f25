import type Anthropic from '@anthropic-ai/sdk';
import { startMcpTasksServer, type McpTasksFixtureServer } from '../../fixtures/mcp-tasks-server';
import { messagesRig, type MessagesGateway } from './messages-gateway';

type Param = Anthropic.MessageParam;
const greeter = { name: 'greeter', match: { model: 'claude-*' }, hierarchy: 'from-trellis' as const };
const askUser: Anthropic.Tool = {
  name: 'ask_user',
  description: 'Ask the user.',
  input_schema: { type: 'object', properties: {} },
};
const ask = { model: 'claude-sonnet-4-6', max_tokens: 1024, tools: [askUser] };
const question: Param = { role: 'user', content: 'greet me' };

describe('an MCP task that asks the person over Anthropic Messages (@anthropic-ai/sdk, tasks server)', () => {
  const rig = messagesRig();
  let tasks: McpTasksFixtureServer;
  beforeEach(async () => {
    tasks = await startMcpTasksServer();
  });
  afterEach(() => tasks.close());
  const create = (gw: MessagesGateway, stream: boolean, messages: Param[]) =>
    stream
      ? gw.anthropic.messages.stream({ ...ask, messages }).finalMessage()
      : gw.anthropic.messages.create({ ...ask, messages });

  it.each([false, true])(
    'hands the question out as a tool_use; its tool_result resumes the task (stream: %s)',
    async (stream) => {
      const gw = await rig.gateway([{ toolUses: [{ id: 'toolu_name', name: 'ask_name' }] }, { text: 'Greeted.' }], {
        trellis: { mcp: { url: tasks.url } },
        bindings: [greeter],
      });
      const handed = await create(gw, stream, [question]);
      expect(handed.stop_reason).toBe('tool_use');
      const use = handed.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
      expect(use.name).toBe('ask_user');
      expect(use.id).toMatch(/^toolu_name\.in1\./);
      expect(use.input).toMatchObject({ tool: 'ask_name', message: 'Please enter your name.', mode: 'form' });

      const answer = JSON.stringify({ action: 'accept', content: { name: 'Grace' } });
      const followUp: Param[] = [
        question,
        { role: 'assistant', content: handed.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: answer }] },
      ];
      const final = await create(gw, stream, followUp);
      expect(final.content).toEqual([{ type: 'text', text: 'Greeted.' }]);
      expect(rig.results(1)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_name', content: 'Hello, Grace.' }]);
      expect(tasks.requests.map((request) => request.method)).toEqual([
        'tools/call',
        'tasks/get',
        'tasks/update',
        'tasks/get',
      ]);
    },
  );
});
