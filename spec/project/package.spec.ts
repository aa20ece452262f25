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
