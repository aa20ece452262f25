import path from 'node:path';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { mcpTrellis } from '../../lib/trellis/mcp';
import { javascript } from '../helpers/javascript';
import { postRaw } from '../helpers/listen';
import { memoryLogger } from '../helpers/memory-logger';
import { ask, mcpRig } from './mcp-gateway';

const V2_STDIO_SERVER = path.join(__dirname, '../../fixtures/mcp-stdio-server-v2.ts');
const tables = { name: 'tables', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const };
const userOf = (content: unknown) => String(content).replace('user ', '');

describe('the loop over a v2-SDK MCP server (2026-07-28)', () => {
  const rig = mcpRig();
  let v2: McpV2FixtureServer;
  const trellis = (extra: Record<string, unknown> = {}) => ({ mcp: { url: v2.url, ...extra } });

  beforeEach(async () => {
    v2 = await startMcpV2Server();
  });
  afterEach(() => v2.close());

  it('speaks 2026-07-28 and hands a structuredContent-only result to the model as its JSON', async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'weather' }] }, { content: 'Mild.' }], {
      trellis: trellis(),
      bindings: [tables],
    });
    const answer = await client.chat.completions.create(ask('weather?'));
    expect(answer.choices[0].message.content).toBe('Mild.');
    expect(rig.toolTexts(1)).toEqual(['{"temperature":21.5,"unit":"C"}']);
    expect(new Set(v2.protocolVersions)).toEqual(new Set(['2026-07-28']));
  });

  it('speaks 2026-07-28 over stdio too (a sibling process answers the probe), and over HTTP', async () => {
    const v2Stdio = { mcp: { command: process.execPath, args: [javascript(V2_STDIO_SERVER)] } };
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'protocol' }] }, { content: 'ok' }], {
      trellis: v2Stdio,
      bindings: [tables],
    });
    await client.chat.completions.create(ask());
    expect(rig.toolTexts(1)).toEqual(['2026-07-28']);
    const http = await rig.gateway([{ toolCalls: [{ name: 'protocol' }] }, { content: 'ok' }], {
      trellis: trellis(),
      bindings: [tables],
    });
    await http.client.chat.completions.create(ask());
    expect(rig.toolTexts(3)).toEqual(['2026-07-28']);
  });

  it("sends each user's Authorization on that user's calls only, under concurrency", async () => {
    const { client } = await rig.gateway(
      (body) => {
        const user = userOf(body.messages[0].content);
        return body.messages.some((m) => m.role === 'assistant')
          ? { content: `done ${user}` }
          : { toolCalls: [{ name: 'whoami', arguments: { tag: user } }] };
      },
      { trellis: trellis({ forwardHeaders: ['Authorization'] }), bindings: [tables] },
    );
    const users = Array.from({ length: 18 }, (_, i) => 'ABC'[i % 3]);
    const answers = await Promise.all(
      users.map((user) =>
        client.chat.completions.create(ask(`user ${user}`), { headers: { authorization: `Bearer token-${user}` } }),
      ),
    );
    expect(answers.map((answer) => answer.choices[0].message.content)).toEqual(users.map((user) => `done ${user}`));
    const calls = v2.calls.filter((call) => call.name === 'whoami');
    expect(calls).toHaveLength(users.length);
    for (const call of calls) expect(call.authorization).toBe(`Bearer token-${String(call.args.tag)}`);
    const seen = rig.model.requests.flatMap((request) =>
      request.body.messages
        .filter((m) => m.role === 'tool')
        .map((m) => [userOf(request.body.messages[0].content), m.content]),
    );
    for (const [user, text] of seen) expect(text).toBe(`authorization: Bearer token-${user}`);
  });

  it("puts the user's header in place of a configured one of the same name, and the configured one on the others' calls", async () => {
    const made = mcpTrellis({
      url: v2.url,
      headers: { Authorization: 'Bearer service' },
      forwardHeaders: ['authorization'],
      logger: memoryLogger().logger,
    });
    try {
      const signal = new AbortController().signal;
      await made.callTool('whoami', { tag: 'user' }, { signal, headers: { authorization: 'Bearer token-A' } });
      await made.callTool('whoami', { tag: 'service' }, { signal, headers: {} });
      expect(v2.calls.map(({ args, authorization }) => [args.tag, authorization])).toEqual([
        ['user', 'Bearer token-A'],
        ['service', 'Bearer service'],
      ]);
    } finally {
      await made.close!();
    }
  });

  it('blocks every destructive tool with one annotation rule, and lets a read-only one run', async () => {
    const judge = {
      rules: [
        {
          surface: 'tool_call' as const,
          when: { annotation: 'destructiveHint' },
          action: 'block' as const,
          reason: 'destructive tools need a human',
        },
      ],
    };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'drop_table' }, { name: 'weather' }] }, { content: 'ok' }],
      { trellis: trellis(), bindings: [tables], judge },
    );
    await client.chat.completions.create(ask());
    expect(rig.toolTexts(1)).toEqual([
      'tool error: blocked by policy: destructive tools need a human',
      '{"temperature":21.5,"unit":"C"}',
    ]);
    expect(v2.calls.map((call) => call.name)).toEqual(['weather']);
  });

  it('with passImages, shows the next turn the image in a user message after the tool messages', async () => {
    const { client } = await rig.gateway(
      [{ toolCalls: [{ id: 'call_chart', name: 'chart' }] }, { content: 'A dot.' }],
      { trellis: trellis(), bindings: [tables], passImages: true },
    );
    await client.chat.completions.create(ask('chart?'));
    const messages = rig.model.requests[1].body.messages;
    expect(messages.slice(-2)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_chart',
        content: 'the chart:\n[image: image/png, 70 bytes; attached to the next message]',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: "Image returned by 'chart' (call_chart):" },
          { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) } },
        ],
      },
    ]);
  });

  it('without passImages, an image stays a short description', async () => {
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'chart' }] }, { content: 'A dot.' }], {
      trellis: trellis(),
      bindings: [tables],
    });
    await client.chat.completions.create(ask('chart?'));
    expect(rig.model.requests[1].body.messages.at(-1)).toEqual(
      expect.objectContaining({ role: 'tool', content: 'the chart:\n[image: image/png, 70 bytes]' }),
    );
  });

  it("extends a tool's timeout on each progress notification with resetTimeoutOnProgress", async () => {
    const counting = { ...tables, toolTimeoutSec: 1, resetTimeoutOnProgress: true };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'count_up', arguments: { steps: 8, delayMs: 200 } }] }, { content: 'ok' }],
      { trellis: trellis(), bindings: [counting] },
    );
    await client.chat.completions.create(ask());
    expect(rig.toolTexts(1)).toEqual(['counted to 8']);
  });

  it('without resetTimeoutOnProgress, the same tool times out with the usual text', async () => {
    const counting = { ...tables, toolTimeoutSec: 1 };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'count_up', arguments: { steps: 8, delayMs: 200 } }] }, { content: 'ok' }],
      { trellis: trellis(), bindings: [counting] },
    );
    await client.chat.completions.create(ask());
    expect(rig.toolTexts(1)).toEqual(["tool error: 'count_up' timed out after 1s"]);
  });

  it('writes a keep-alive to a streaming client when the tool reports progress', async () => {
    const { url } = await rig.gateway(
      [{ toolCalls: [{ name: 'count_up', arguments: { steps: 3, delayMs: 0 } }] }, { content: 'ok' }],
      {
        trellis: trellis(),
        bindings: [tables],
        keepAliveSec: 300,
      },
    );
    const raw = await postRaw(url, { ...ask(), stream: true });
    expect(raw.body).toMatch(/^: keep-alive$/m);
    expect(raw.body.indexOf(': keep-alive')).toBeLessThan(raw.body.indexOf('data: [DONE]'));
  });
});
