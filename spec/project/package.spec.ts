import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

/** What `npm pack` would ship (the build's own files aside). */
function packed(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((file) => file.path);
}

describe('the admin page as the package ships it', () => {
  it('packs the page and every file it loads', () => {
    const files = packed();
    const html = readFileSync(path.join(ROOT, 'admin-page', 'index.html'), 'utf8');
    const loaded = [...html.matchAll(/(?:src|href)="([^":]+)"/g)].map((match) => `admin-page/${match[1]}`);
    expect(loaded).toEqual(['admin-page/admin.css', 'admin-page/admin.js']);
    expect(files).toEqual(expect.arrayContaining(['admin-page/index.html', ...loaded]));
  }, 60_000);

  it('is found from dist/, where the compiled module runs, under a dot directory too (pnpm: node_modules/.pnpm/...)', async () => {
    const scratch = mkdtempSync(path.join(ROOT, 'node_modules', '.cache', 'admin-page-'));
    try {
      const installed = path.join(scratch, 'node_modules', 'express-agent-loop');
      mkdirSync(path.join(installed, 'dist', 'admin'), { recursive: true });
      const source = readFileSync(path.join(ROOT, 'lib', 'admin', 'page.ts'), 'utf8');
      const compiled = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      });
      writeFileSync(path.join(installed, 'dist', 'admin', 'page.js'), compiled.outputText);
      cpSync(path.join(ROOT, 'admin-page'), path.join(installed, 'admin-page'), { recursive: true });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { adminPage, PAGE_DIR } = require(path.join(installed, 'dist', 'admin', 'page.js'));
      expect(PAGE_DIR).toBe(path.join(realpathSync(installed), 'admin-page'));
      const app = express().use('/admin', adminPage());
      expect((await request(app).get('/admin')).headers.location).toBe('/admin/');
      const index = await request(app).get('/admin/');
      expect(index.text).toContain('<title>agent-loop admin</title>');
      expect(index.headers['content-security-policy']).toContain("script-src 'self'");
      expect((await request(app).get('/admin/admin.js')).text).toContain("const KEY_ITEM = 'agent-loop-admin-key';");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('the source maps as the package ships them', () => {
  it('carry their TypeScript inline: the lib/ a map names is not in the package', () => {
    expect(packed().filter((file) => file.startsWith('lib/'))).toEqual([]);
    const build = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.build.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    )!;
    const file = path.join(ROOT, 'lib', 'shared', 'glob.ts');
    const written = new Map<string, string>();
    ts.createProgram([file], { ...build.options, declaration: false, noEmitOnError: false }).emit(
      undefined,
      (name, text) => written.set(path.basename(name), text),
    );
    const map = JSON.parse(written.get('glob.js.map')!) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sources).toEqual(['../../lib/shared/glob.ts']);
    expect(map.sourcesContent).toEqual([readFileSync(file, 'utf8')]);
  }, 60_000);
});
