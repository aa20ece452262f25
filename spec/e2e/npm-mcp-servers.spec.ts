import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEverythingHttp, stdioServer } from '../../fixtures/npm-mcp-servers';
import type { Rule } from '../../lib/judge/rule';
import { mcpTrellis, type McpTrellisOptions } from '../../lib/trellis/mcp';
import { resultText } from '../../lib/trellis/result';
import type { ToolProgress, Trellis } from '../../lib/types';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
import { ask, mcpRig } from './mcp-gateway';

const open = () => new AbortController().signal;

describe('the MCP servers from npm', () => {
  const closers: (() => Promise<unknown>)[] = [];
  let logger: ReturnType<typeof memoryLogger>['logger'];
  let lines: LogLine[];
  let dir: string;

  function trellis(options: McpTrellisOptions): Trellis {
    const made = mcpTrellis({ logger, ...options });
    closers.push(() => made.close!());
    return made;
  }
  const read = async (server: Trellis, tool: string, args: Record<string, unknown> = {}) =>
    resultText(await server.callTool(tool, args, { signal: open() }), 65536);

  beforeEach(async () => {
    ({ logger, lines } = memoryLogger());
    dir = await mkdtemp(path.join(tmpdir(), 'agent-loop-npm-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe('server-everything over stdio', () => {
    it('reads its rich results as the model should', async () => {
      const everything = trellis({ ...stdioServer('everything'), name: 'everything' });
      expect(await read(everything, 'echo', { message: 'hi' })).toBe('Echo: hi');
      expect(JSON.parse(await read(everything, 'get-structured-content', { location: 'New York' }))).toEqual({
        temperature: 33,
        conditions: 'Cloudy',
        humidity: 82,
      });
      expect(await read(everything, 'get-resource-links', { count: 1 })).toBe(
        'Here are 1 resource links to resources available in this server:\n[resource link: demo://resource/dynamic/blob/1; name: Blob Resource 1; description: Resource 1: plaintext resource; type: text/plain]',
      );
      expect(await read(everything, 'get-resource-reference', { resourceType: 'Blob', resourceId: 2 })).toMatch(
        /^Returning resource reference for Resource 2:\nResource 2: This is a base64 blob created at .+\nYou can access this resource using the URI: demo:\/\/resource\/dynamic\/blob\/2$/,
      );
      expect(await read(everything, 'get-tiny-image')).toMatch(
        /^Here's the image you requested:\n\[image: image\/png, \d+ bytes\]\nThe image above is the MCP logo\.$/,
      );
      expect(lines).toContainEqual({
        level: 'info',
        message: 'trellis stderr',
        trellis: 'everything',
        line: 'Starting default (STDIO) server...',
      });
    });

    it("passes its tools' annotations on and reports progress", async () => {
      const everything = trellis(stdioServer('everything'));
      const echo = (await everything.listTools()).find((tool) => tool.name === 'echo');
      expect(echo?.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      const progress: ToolProgress[] = [];
      await everything.callTool(
        'trigger-long-running-operation',
        { duration: 0.3, steps: 3 },
        { signal: open(), onProgress: (step) => progress.push(step) },
      );
      // the last step's notification races the result inside the SDK client, so only the steps before it are sure
      expect(progress.map((step) => [step.progress, step.total]).slice(0, 2)).toEqual([
        [1, 3],
        [2, 3],
      ]);
    });
  });

  it('server-everything over Streamable HTTP: lists, calls and reports progress', async () => {
    const server = await startEverythingHttp();
    closers.push(() => server.close());
    const everything = trellis({ url: server.url });
    expect((await everything.listTools()).map((tool) => tool.name)).toContain('get-sum');
    expect(await read(everything, 'get-sum', { a: 2, b: 40 })).toBe('The sum of 2 and 40 is 42.');
    const progress: number[] = [];
    await everything.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { signal: open(), onProgress: (step) => progress.push(step.progress) },
    );
    expect(progress.slice(0, 2)).toEqual([1, 2]);
  });

  it('server-memory over stdio: writes and reads its graph', async () => {
    const memory = trellis(stdioServer('memory', [], { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') }));
    await memory.callTool(
      'create_entities',
      { entities: [{ name: 'Ada', entityType: 'person', observations: ['writes programs'] }] },
      { signal: open() },
    );
    expect(JSON.parse(await read(memory, 'read_graph'))).toEqual({
      entities: [{ name: 'Ada', entityType: 'person', observations: ['writes programs'] }],
      relations: [],
    });
  });

  describe('server-filesystem over stdio, through the loop', () => {
    const rig = mcpRig();

    it('reads a file, and a destructiveHint rule blocks the write', async () => {
      await writeFile(path.join(dir, 'notes.txt'), 'hello from disk\n');
      const files = { name: 'files', match: { model: 'agent-*' }, hierarchy: ['read_text_file', 'write_file'] };
      const judge = {
        rules: [
          {
            surface: 'tool_call' as const,
            when: { annotation: 'destructiveHint' },
            action: 'block' as const,
            reason: 'read-only agent',
          },
        ],
      };
      const { client } = await rig.gateway(
        [
          {
            toolCalls: [
              { name: 'read_text_file', arguments: { path: path.join(dir, 'notes.txt') } },
              { name: 'write_file', arguments: { path: path.join(dir, 'notes.txt'), content: 'gone' } },
            ],
          },
          { content: 'Read it.' },
        ],
        { trellis: { mcp: stdioServer('filesystem', [dir]) }, bindings: [files], judge },
      );
      const answer = await client.chat.completions.create(ask());
      expect(answer.choices[0].message.content).toBe('Read it.');
      expect(rig.toolTexts(1)).toEqual(['hello from disk\n', 'tool error: blocked by policy: read-only agent']);
      expect(await readFile(path.join(dir, 'notes.txt'), 'utf8')).toBe('hello from disk\n');
    });

    describe('an allow-list of one folder, where the server may read its parent', () => {
      const climbs = () => `${dir}/docs/../secret.txt`;
      const calls = () => [
        { name: 'read_text_file', arguments: { path: climbs() } },
        { name: 'read_multiple_files', arguments: { paths: [path.join(dir, 'docs', 'notes.txt'), climbs()] } },
        { name: 'read_text_file', arguments: { path: path.join(dir, 'docs', 'notes.txt') } },
      ];
      const files = {
        name: 'files',
        match: { model: 'agent-*' },
        hierarchy: ['read_text_file', 'read_multiple_files'],
      };
      const outside: Rule = { surface: 'tool_call', action: 'block', reason: 'outside docs' };

      beforeEach(async () => {
        await mkdir(path.join(dir, 'docs'));
        await writeFile(path.join(dir, 'docs', 'notes.txt'), 'public notes\n');
        await writeFile(path.join(dir, 'secret.txt'), 'the launch code\n');
      });

      async function toolTexts(rules: Rule[]): Promise<string[]> {
        const { client } = await rig.gateway([{ toolCalls: calls() }, { content: 'Done.' }], {
          trellis: { mcp: stdioServer('filesystem', [dir]) },
          bindings: [files],
          judge: { rules },
        });
        expect((await client.chat.completions.create(ask())).choices[0].message.content).toBe('Done.');
        return rig.toolTexts(1) as string[];
      }

      it("a regex on the path's start lets '..' climb out to the secret", async () => {
        const texts = await toolTexts([
          { surface: 'tool_call', when: { argument: 'path', matches: `^${path.join(dir, 'docs')}/` }, action: 'allow' },
          outside,
        ]);
        expect(texts).toEqual(['the launch code\n', 'tool error: blocked by policy: outside docs', 'public notes\n']);
      });

      it("'within' holds: the climbs are blocked, on one path and in a list, and the folder is read", async () => {
        const docs = [path.join(dir, 'docs')];
        const texts = await toolTexts([
          { surface: 'tool_call', when: { argument: 'path', within: docs }, action: 'allow' },
          {
            surface: 'tool_call',
            tool: 'read_multiple_files',
            when: { argument: 'paths', within: docs },
            action: 'allow',
          },
          outside,
        ]);
        expect(texts).toEqual([
          'tool error: blocked by policy: outside docs',
          'tool error: blocked by policy: outside docs',
          'public notes\n',
        ]);
      });
    });
  });
});
