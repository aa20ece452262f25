import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as main from '../../lib';
import * as testing from '../../lib/testing';
import { javascript } from '../helpers/javascript';

const ROOT = path.join(__dirname, '..', '..');
const run = promisify(execFile);

/** The README's "Testing your gateway" files, as printed: `{ cjs: { 'gateway.js': ..., ... }, esm: { ... } }`. */
function readmeExample(): Record<'cjs' | 'esm', Record<string, string>> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Testing your gateway'),
    readme.indexOf('\n## ', readme.indexOf('## Testing your gateway') + 1),
  );
  const files = [...section.matchAll(/^```js\n\/\/ (\S+)\n([\s\S]*?)^```$/gm)].map(([, name, code]) => ({
    name,
    code,
    kind: code.includes('require(') ? ('cjs' as const) : ('esm' as const),
  }));
  const example = { cjs: {} as Record<string, string>, esm: {} as Record<string, string> };
  for (const { name, code, kind } of files) example[kind][name] = code;
  return example;
}

/**
 * A project of the user's, beside the repo's node_modules (express, supertest and jest resolve as after npm
 * install), with the package installed as published: its package.json and its compiled JavaScript in dist/.
 */
function userProject(): string {
  const dir = mkdtempSync(path.join(ROOT, '.cache', 'testing-'));
  const installed = path.join(dir, 'node_modules', 'express-agent-loop');
  mkdirSync(installed, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'my-gateway', private: true }));
  writeFileSync(path.join(installed, 'package.json'), readFileSync(path.join(ROOT, 'package.json')));
  symlinkSync(path.dirname(javascript('lib/index.ts')), path.join(installed, 'dist'));
  for (const [kind, files] of Object.entries(readmeExample())) {
    mkdirSync(path.join(dir, kind));
    writeFileSync(
      path.join(dir, kind, 'package.json'),
      JSON.stringify({ type: kind === 'esm' ? 'module' : 'commonjs' }),
    );
    for (const [name, code] of Object.entries(files)) writeFileSync(path.join(dir, kind, name), code);
  }
  return dir;
}

describe('express-agent-loop/testing', () => {
  let dir: string;
  beforeAll(() => {
    dir = userProject();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exports scriptedModel, runCode and localTrellis (the main entry’s own), and nothing else at run time', () => {
    expect(Object.keys(testing).sort()).toEqual(['localTrellis', 'runCode', 'scriptedModel']);
    expect(testing.localTrellis).toBe(main.localTrellis);
  });

  it('is a subpath of the package, typed, in what it ships', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.exports['./testing']).toEqual({
      types: './dist/testing/index.d.ts',
      default: './dist/testing/index.js',
    });
    expect(manifest.files).toContain('dist');
    expect(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')).toContain('"rootDir": "lib"');
  });

  it('resolves by its name with require and with import, and the main entry does not load it', async () => {
    // one process (the main entry loads once): import as ESM does, require as CommonJS does
    const script = [
      "import { createRequire } from 'node:module';",
      'const require = createRequire(`${process.cwd()}/`);',
      "const main = require('express-agent-loop');",
      "const loaded = Object.keys(require.cache).filter((file) => file.includes('/testing/')).length;",
      "const required = require('express-agent-loop/testing');",
      "const { scriptedModel, localTrellis } = await import('express-agent-loop/testing');",
      "const model = scriptedModel([{ content: 'hi' }]);",
      'await model.ready;',
      "console.log(loaded, typeof required.scriptedModel, localTrellis === main.localTrellis, model.url.endsWith('/v1'));",
      'await model.close();',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
    expect(stdout.trim()).toBe('0 function true true');
  }, 120_000);

  it('runs the README example as printed, in CommonJS and in ESM, under jest', async () => {
    const config = JSON.stringify({ testEnvironment: 'node', transform: {}, testMatch: ['**/gateway.test.js'] });
    const jest = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
    const args = [
      '--experimental-vm-modules',
      jest,
      '--rootDir',
      dir,
      '--config',
      config,
      '--ci',
      '--no-watchman',
      '--runInBand',
    ];
    const { LOG_LEVEL: _level, ...env } = process.env;
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd: dir,
      env: { ...env, NODE_NO_WARNINGS: '1' },
    }).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`the README example failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stderr).toMatch(/PASS cjs\/gateway\.test\.js/);
    expect(stderr).toMatch(/PASS esm\/gateway\.test\.js/);
    expect(stderr).toMatch(/Tests:\s+4 passed, 4 total/);
    // the example's quiet logger: none of the loop's log lines among jest's output
    expect(`${stdout}${stderr}`).not.toContain('agent-loop');
  }, 120_000);
});
