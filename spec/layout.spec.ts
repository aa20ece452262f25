import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..');

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
 * added or renamed brings its spec. spec/e2e/, spec/reliability/ and spec/providers/ are scenario suites beside them.
 */
describe('spec/ mirrors lib/', () => {
  const libFiles = typeScriptFiles('lib');

  it('has a spec of the same path for every lib file with code that runs', () => {
    const missing = libFiles.filter((file) => !typesOnly(file) && !fs.existsSync(path.join(ROOT, specOf(file))));
    expect(missing.map((file) => `${file}: no ${specOf(file)}`)).toEqual([]);
  });

  it('tells a file of types only from one with code that runs', () => {
    expect(typesOnly('lib/types.ts')).toBe(true);
    expect(['lib/errors.ts', 'lib/index.ts', 'lib/glob.ts'].filter(typesOnly)).toEqual([]);
  });
});
