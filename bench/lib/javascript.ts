import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '..', '..');
// Under node_modules so that the transpiled files still resolve the project's packages.
const benchOutDir = path.join(root, 'node_modules', '.cache', 'express-agent-loop-bench');
const SOURCES = ['lib', 'fixtures', 'bench'];
/**
 * The bench's own packages (bench/package.json), for the transpiled files: they sit under the root's node_modules,
 * so the project's packages resolve first and these only for what the project does not install.
 */
export const BENCH_PACKAGES = path.join(root, 'bench', 'node_modules');
let transpiled = false;

function compilerOptions(): ts.CompilerOptions {
  const configFile = path.join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  return { ...options, module: ts.ModuleKind.CommonJS, sourceMap: false, declaration: false };
}

function transpileTree(dir: string, outDir: string, options: ts.CompilerOptions): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const source = path.join(dir, entry.name);
    if (entry.name === 'node_modules') continue;
    if (entry.isDirectory()) transpileTree(source, outDir, options);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const target = path.join(outDir, path.relative(root, source)).replace(/\.ts$/, '.js');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, ts.transpileModule(fs.readFileSync(source, 'utf8'), { compilerOptions: options, fileName: source }).outputText);
    }
  }
}

/**
 * `lib/`, `fixtures/` and `bench/` transpiled into `outDir` (a folder inside the project, so that the project's
 * packages resolve), with links to the project's other files (`admin-page/`, `package.json`, ...) beside them.
 */
export function transpileProject(outDir: string): void {
  const options = compilerOptions();
  for (const dir of SOURCES) transpileTree(path.join(root, dir), outDir, options);
  for (const entry of fs.readdirSync(root)) {
    if (![...SOURCES, 'spec', 'node_modules', '.git', '.cache'].includes(entry)) fs.symlinkSync(path.join(root, entry), path.join(outDir, entry));
  }
}

/**
 * The JavaScript of one of the project's TypeScript files, transpiled (once per harness run, with the project's
 * compiler options) so that the bench's processes run as a user's compiled gateway does. Not under ts-node: its
 * `repl` import loads Node's `domain` module, which wraps every EventEmitter `emit` of the process.
 */
export function javascriptOf(file: string): string {
  if (!transpiled) {
    fs.rmSync(benchOutDir, { recursive: true, force: true });
    fs.mkdirSync(benchOutDir, { recursive: true });
    transpileProject(benchOutDir);
    transpiled = true;
  }
  return path.join(benchOutDir, path.relative(root, file)).replace(/\.ts$/, '.js');
}
