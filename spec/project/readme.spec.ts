import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

/** The README and docs/, in that order. */
function pages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((file) => file.endsWith('.md')).sort();
  return [path.join(ROOT, 'README.md'), ...docs.map((file) => path.join(ROOT, 'docs', file))].map((file) => readFileSync(file, 'utf8'));
}

/** The fenced ```ts blocks of the README and docs/ that are whole programs (they import), as a user pastes them into a file. */
function programs(): string[] {
  return pages().flatMap((page) => [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((block) => block[1]).filter((code) => code.startsWith('import ')));
}

/**
 * A scratch project beside the repo's node_modules (so express and the SDK resolve as they would after npm
 * install) holding the package as published: package.json and the declarations `npm run build` emits.
 */
function scratchProject(): string {
  const cache = path.join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'readme-'));
  const installed = path.join(dir, 'node_modules', 'express-agent-loop');
  const build = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const emitted = ts
    .createProgram(build.fileNames, { ...build.options, outDir: path.join(installed, 'dist'), emitDeclarationOnly: true, sourceMap: false, declarationMap: false })
    .emit();
  expect(emitted.diagnostics).toEqual([]);
  writeFileSync(path.join(installed, 'package.json'), readFileSync(path.join(ROOT, 'package.json')));
  return dir;
}

/** The optional peers, which a new user has not installed. */
const PEERS = /[\\/]node_modules[\\/](prom-client|@opentelemetry[\\/]api)([\\/]|$)/;

/**
 * What a new user's `tsc --noEmit` says: strict, Node 16 modules, no skipLibCheck (TypeScript's default), and
 * neither prom-client nor @opentelemetry/api installed.
 */
function typeErrors(files: string[]): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, esModuleInterop: true, types: ['node'] };
  const host = ts.createCompilerHost(options);
  host.fileExists = (file) => !PEERS.test(file) && ts.sys.fileExists(file);
  host.directoryExists = (dir) => !PEERS.test(dir) && ts.sys.directoryExists(dir);
  const program = ts.createProgram(files, options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.relative(path.dirname(files[0]), d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the README and docs/, as a new user pastes them', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratchProject();
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has the "Use it" program, the test kit\'s typed script and the metrics program', () => {
    expect(programs()).toEqual([
      expect.stringContaining("import { agentLoop, skipWhenInternal } from 'express-agent-loop';"),
      expect.stringContaining("import { scriptedModel, type ScriptedModel, type ScriptedRequest } from 'express-agent-loop/testing';"),
      expect.stringContaining("app.get('/metrics'"),
    ]);
  });

  it('every program typechecks against the published declarations, strict, without skipLibCheck or the optional peers', () => {
    const files = programs().map((code, i) => {
      const file = path.join(dir, `program-${i}.ts`);
      writeFileSync(file, code);
      return file;
    });
    expect(typeErrors(files)).toEqual([]);
  }, 120_000);
});
