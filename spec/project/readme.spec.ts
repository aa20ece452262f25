import { spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { WIRES, wireFor } from '../../lib/wire/wires';
import { javascript } from '../helpers/javascript';

const ROOT = path.join(__dirname, '..', '..');

/** The README and docs/, in that order. */
function pages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort();
  return [path.join(ROOT, 'README.md'), ...docs.map((file) => path.join(ROOT, 'docs', file))].map((file) =>
    readFileSync(file, 'utf8'),
  );
}

const readme = () => readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The fenced ```sh block of `page` that runs gateway.example.json. */
const exampleCommand = (page: string) =>
  [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .map((block) => block[1])
    .find((code) => code.includes('gateway.example.json'));

/** The fenced ```ts blocks of the README and docs/ that are whole programs (they import), as a user pastes them into a file. */
function programs(): string[] {
  return pages().flatMap((page) =>
    [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
      .map((block) => block[1])
      .filter((code) => code.startsWith('import ')),
  );
}

/** Where `npm run typecheck` leaves the declarations of lib/ (package.json): the same tsc over the same sources. */
const TYPECHECK_DECLARATIONS = path.join(ROOT, 'node_modules', '.cache', 'tsc', 'declarations', 'lib');

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(dir, file));
}

/** The typecheck's declarations, when each file of lib/ has one written after it (else a spec run alone emits its own). */
function typecheckDeclarations(): string | undefined {
  const lib = path.join(ROOT, 'lib');
  const fresh = sourcesOf(lib).every((source) => {
    const declaration = path.join(TYPECHECK_DECLARATIONS, path.relative(lib, source)).replace(/\.ts$/, '.d.ts');
    return existsSync(declaration) && statSync(declaration).mtimeMs >= statSync(source).mtimeMs;
  });
  return fresh ? TYPECHECK_DECLARATIONS : undefined;
}

/** The declarations `npm run build` emits, into `outDir`. */
function emitDeclarations(outDir: string): void {
  const build = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const emitted = ts
    .createProgram(build.fileNames, {
      ...build.options,
      outDir,
      emitDeclarationOnly: true,
      sourceMap: false,
      declarationMap: false,
    })
    .emit();
  expect(emitted.diagnostics).toEqual([]);
}

/**
 * A scratch project beside the repo's node_modules (so express and the SDK resolve as they would after npm
 * install) holding the package as published: package.json and the declarations tsc emits of lib/.
 */
function scratchProject(): string {
  const cache = path.join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'readme-'));
  const installed = path.join(dir, 'node_modules', 'express-agent-loop');
  const declarations = typecheckDeclarations();
  if (declarations) cpSync(declarations, path.join(installed, 'dist'), { recursive: true });
  else emitDeclarations(path.join(installed, 'dist'));
  writeFileSync(path.join(installed, 'package.json'), readFileSync(path.join(ROOT, 'package.json')));
  return dir;
}

/** The optional peers (package.json's peerDependenciesMeta), which a new user has not installed. */
const PEERS = /[\\/]node_modules[\\/](prom-client|ioredis|@opentelemetry[\\/]api)([\\/]|$)/;

/**
 * What a new user's `tsc --noEmit` says of the programs and of this package's declarations: strict, Node 16 modules,
 * no skipLibCheck (TypeScript's default), and none of prom-client, ioredis or @opentelemetry/api installed. Another
 * package's own declarations are its own (@anthropic-ai/sdk's ESM types name @opentelemetry/api too).
 */
function typeErrors(files: string[]): string[] {
  const scratch = path.dirname(files[0]);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    esModuleInterop: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  host.fileExists = (file) => !PEERS.test(file) && ts.sys.fileExists(file);
  host.directoryExists = (dir) => !PEERS.test(dir) && ts.sys.directoryExists(dir);
  const program = ts.createProgram(files, options, host);
  // Checked file by file, only the scratch project's own (the programs and this package's declarations): the
  // checker then reads of other packages' declarations only what these files use, instead of checking all of them.
  const own = program.getSourceFiles().filter((file) => file.fileName.startsWith(scratch));
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ]
    .filter((d) => !d.file || d.file.fileName.startsWith(scratch))
    .map(
      (d) =>
        `${d.file ? path.relative(scratch, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('the README and docs/, as a new user pastes them', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratchProject();
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has the "Use it" program, the test kit\'s typed script, the three approval clients and the metrics program', () => {
    expect(programs()).toEqual([
      expect.stringContaining("import { agentLoop, skipWhenInternal } from 'express-agent-loop';"),
      expect.stringContaining(
        "import { scriptedModel, type ScriptedModel, type ScriptedRequest } from 'express-agent-loop/testing';",
      ),
      expect.stringContaining("if (call?.type === 'function' && call.function.name === 'approve_tool_call') {"),
      expect.stringContaining("type: 'mcp_approval_response'"),
      expect.stringContaining("import Anthropic from '@anthropic-ai/sdk';"),
      expect.stringContaining("app.get('/metrics'"),
    ]);
  });

  it('every program typechecks against the published declarations, strict, without skipLibCheck or the optional peers', () => {
    const files = programs().map((code, i) => {
      // a program with a top-level await is an ES module, as a user saves it to run it (.mts, or "type": "module")
      const file = path.join(dir, `program-${i}.${/^\S.*\bawait\b/m.test(code) ? 'mts' : 'ts'}`);
      writeFileSync(file, code);
      return file;
    });
    expect(typeErrors(files)).toEqual([]);
  }, 120_000);
});

describe("the README's programs, as a new user runs them", () => {
  it('mounts the "Use it" proxy on the path of every wire the loop speaks', () => {
    const mounted = /^app\.post\((\[[^\]]*\])/m.exec(programs()[0])?.[1];
    expect(
      mounted && [
        ...new Set((JSON.parse(mounted.replace(/'/g, '"')) as string[]).map((route) => wireFor(route)?.name)),
      ],
    ).toEqual(WIRES.map((wire) => wire.name));
  });

  it('starts the ready gateway on gateway.example.json with the command it prints, as after npm install', async () => {
    const command = exampleCommand(readme());
    expect(command).toBeDefined();
    expect(exampleCommand(readFileSync(path.join(ROOT, 'docs', 'gateway.md'), 'utf8'))).toBe(command);
    // a project where the package is installed: its example where npx's command finds it
    const project = mkdtempSync(path.join(tmpdir(), 'agent-loop-example-'));
    mkdirSync(path.join(project, 'node_modules', 'express-agent-loop'), { recursive: true });
    copyFileSync(
      path.join(ROOT, 'gateway.example.json'),
      path.join(project, 'node_modules', 'express-agent-loop', 'gateway.example.json'),
    );
    // npx runs the package's bin: here the CLI's JavaScript; exec, so that the signal below reaches it
    const npx = `npx() { shift; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(javascript('lib/gateway/cli.ts'))} "$@"; }`;
    const { AGENT_LOOP_CLIENT_KEYS: _keys, UPSTREAM_API_KEY: _key, ...env } = process.env;
    const child = spawn('bash', ['-euc', `${npx}\n${command}`], {
      cwd: project,
      env: { ...env, PORT: '0', LOG_LEVEL: 'error' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const found = /^listening on (http:\/\/[^\s]+)$/m.exec(output)?.[1];
          if (found) resolve(found);
        });
        void exited.then(() => reject(new Error(`the gateway exited: ${output}`)));
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // the client keys came from the variable the command set: a request without one is refused
      expect((await fetch(`${url}/v1/models`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);
});
