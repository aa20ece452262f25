import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

function typeScriptFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** A statement that leaves nothing behind in the JavaScript: a type, an interface, a type-only import or export. */
function leavesNothing(statement: ts.Statement): boolean {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return true;
  if (ts.isImportDeclaration(statement)) return statement.importClause?.isTypeOnly === true;
  return ts.isExportDeclaration(statement) && statement.isTypeOnly;
}

/** A file of types only (lib/types.ts): nothing of it runs, so there is nothing for a spec to run. */
function typesOnly(file: string): boolean {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022);
  return source.statements.every(leavesNothing);
}

const specOf = (file: string) => file.replace(/^lib\//, 'spec/').replace(/\.ts$/, '.spec.ts');

/**
 * spec/ mirrors lib/: each lib file's tests are in the spec of the same path, so a newcomer finds them, and a file
 * added or renamed brings its spec. Both ways: a spec file is one lib file's (`spec/<path>.spec.ts`, or
 * `spec/<path>-<aspect>.spec.ts` for a second one of the same file), one fixture's or spec helper's, or it lives in
 * a folder of cross-cutting specs.
 */
const CROSS_CUTTING = ['spec/e2e/', 'spec/reliability/', 'spec/providers/', 'spec/project/'];

/** The file a spec file tests: its lib, fixtures or spec file of the same path, or that file's with an aspect after a `-`. */
function subjectOf(spec: string): string | undefined {
  const name = spec.replace(/\.spec\.ts$/, '');
  const bases = [name.replace(/^spec\//, 'lib/'), name.replace(/^spec\/fixtures\//, 'fixtures/'), name];
  for (const base of bases) {
    for (let end = base.length; end > base.lastIndexOf('/'); end = base.lastIndexOf('-', end - 1)) {
      if (fs.existsSync(path.join(ROOT, `${base.slice(0, end)}.ts`))) return `${base.slice(0, end)}.ts`;
    }
  }
  return undefined;
}

describe('spec/ mirrors lib/', () => {
  const libFiles = typeScriptFiles('lib');

  it('has a spec of the same path for every lib file with code that runs', () => {
    const missing = libFiles.filter((file) => !typesOnly(file) && !fs.existsSync(path.join(ROOT, specOf(file))));
    expect(missing.map((file) => `${file}: no ${specOf(file)}`)).toEqual([]);
  });

  it('has a lib file (or a fixture or spec helper) for every spec file outside the cross-cutting folders', () => {
    const specs = typeScriptFiles('spec').filter(
      (file) => file.endsWith('.spec.ts') && !CROSS_CUTTING.some((folder) => file.startsWith(folder)),
    );
    expect(
      specs.filter((spec) => subjectOf(spec) === undefined).map((spec) => `${spec}: no lib file it tests`),
    ).toEqual([]);
  });

  it('tells a file of types only from one with code that runs', () => {
    expect(typesOnly('lib/types.ts')).toBe(true);
    expect(['lib/errors.ts', 'lib/index.ts', 'lib/shared/glob.ts'].filter(typesOnly)).toEqual([]);
  });

  it('finds the file a spec tests, a second spec of it by its aspect, and none for a spec of nothing', () => {
    expect(
      [
        'spec/loop/run.spec.ts',
        'spec/judge/runner-failures.spec.ts',
        'spec/fixtures/demo.spec.ts',
        'spec/system-programs.spec.ts',
        'spec/loop/nothing.spec.ts',
      ].map(subjectOf),
    ).toEqual(['lib/loop/run.ts', 'lib/judge/runner.ts', 'fixtures/demo.ts', 'spec/system-programs.ts', undefined]);
  });
});
