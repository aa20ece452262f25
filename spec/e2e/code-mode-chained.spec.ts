import type OpenAI from 'openai';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { scriptedModel, type ScriptedModel } from '../../lib/testing/scripted-model';
import type { ScriptedRequest } from '../../lib/testing/script';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

const DROP = 'const w = await tools.weather({});\nconst d = await tools.drop_table({});\nreturn { w, d };';

describe('code mode: a Responses client chained on previous_response_id answers a nested approval (official openai client)', () => {
  let mcp: McpV2FixtureServer;
  let model: ScriptedModel;
  let gateway: Listening;
  let lastRead = '';

  beforeEach(async () => {
    mcp = await startMcpV2Server({ asks: true });
    model = scriptedModel([
      { toolCalls: [{ name: 'run_code', arguments: { code: DROP } }] },
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
            codeMode: { timeoutSec: 60 },
            requireApproval: { never: { toolNames: ['weather', 'whoami', 'pay'] } },
          },
        ],
      }).app,
    );
  });
  afterEach(async () => {
    await gateway?.close();
    await model?.close();
    await mcp?.close();
  });
  const ran = (name: string) => mcp.calls.filter((call) => call.name === name).length;

  it.each([false, true])(
    'the follow-up sends only the approval, chained on the handed-back response (stream: %s): the program resumes and the tool runs once',
    async (stream) => {
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
      expect(lastRead.replace(/\\/g, '')).toContain(
        '{"return":{"w":{"temperature":21.5,"unit":"C"},"d":"dropped"},"log":[]}',
      );
      // the upstream's follow-up is chained on its own reply too, and carries only the program's answer
      const last = model.requests.at(-1)!.body as { previous_response_id?: unknown; input?: { type: string }[] };
      expect(typeof last.previous_response_id).toBe('string');
      expect(last.input?.map((item) => item.type)).toEqual(['function_call_output']);
    },
  );
});
