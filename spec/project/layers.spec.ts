import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

/** The table of layers, top to bottom, as docs/architecture.md draws it: the one place both follow. */
const ARCHITECTURE = 'docs/architecture.md';

type Graph = ReadonlyMap<string, readonly string[]>;

function typeScriptFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

const literal = (node: ts.Node | undefined): string | undefined =>
  node && ts.isStringLiteral(node) ? node.text : undefined;

/** The module one node names: an import or `export ... from` (type-only too), `import('x')` as a type or a call. */
function specifierOf(node: ts.Node): string | undefined {
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return literal(node.moduleSpecifier);
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) return literal(node.argument.literal);
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    return literal(node.arguments[0]);
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    return literal(node.moduleReference.expression);
  }
  return undefined;
}

/** Every module a source names, as written. */
function specifiersIn(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const specifier = specifierOf(node);
    if (specifier !== undefined) found.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true));
  return found;
}

/** The lib files a file imports (packages aside): each relative specifier as the file it names. */
function importGraph(sources: ReadonlyMap<string, string>): Graph {
  const resolve = (from: string, specifier: string): string => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
    return [`${base}.ts`, `${base}/index.ts`].find((file) => sources.has(file)) ?? `${base} (no such file)`;
  };
  return new Map(
    [...sources].map(([file, text]) => [
      file,
      [
        ...new Set(
          specifiersIn(file, text)
            .filter((s) => s.startsWith('.'))
            .map((s) => resolve(file, s)),
        ),
      ],
    ]),
  );
}

/** Each circle of imports once, as the files it runs through (`a -> b -> a`), found by a depth-first walk. */
function cyclesIn(graph: Graph): string[] {
  const done = new Set<string>();
  const cycles = new Set<string>();
  const walk = (file: string, trail: string[]): void => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const circle = trail.slice(at);
      const start = circle.indexOf([...circle].sort()[0]);
      cycles.add([...circle.slice(start), ...circle.slice(0, start), circle[start]].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) walk(next, [...trail, file]);
    done.add(file);
  };
  for (const file of graph.keys()) walk(file, []);
  return [...cycles].sort();
}

/** The layers, top to bottom: each a list of files (`lib/x.ts`), folders (`lib/x/`) and `*` for one folder's name. */
function layersIn(markdown: string): string[][] {
  const section = `\n${markdown}`.split('\n## ').find((part) => part.startsWith('The layers\n'));
  const rows = (section ?? '').split('\n').filter((line) => line.startsWith('| ') && !/^\| (Layer|-)/.test(line));
  return rows.map((row) => [...(row.split('|')[2] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]));
}

const matches = (pattern: string, file: string): boolean => {
  const body = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+');
  return new RegExp(`^${body}${pattern.endsWith('/') ? '' : '$'}`).test(file);
};

/** A file's layer (0: the top): the layer of the longest pattern it matches; -1 in none. */
function layerOf(layers: readonly string[][], file: string): number {
  let best = { layer: -1, length: -1 };
  layers.forEach((patterns, layer) => {
    for (const pattern of patterns) {
      if (matches(pattern, file) && pattern.length > best.length) best = { layer, length: pattern.length };
    }
  });
  return best.layer;
}

/** Each import from a file to one in a layer above its own, as `from -> to`. */
function upwardIn(graph: Graph, layers: readonly string[][]): string[] {
  return [...graph].flatMap(([file, imports]) =>
    imports.filter((to) => layerOf(layers, to) < layerOf(layers, file)).map((to) => `${file} -> ${to}`),
  );
}

const libSources = new Map(
  typeScriptFiles('lib').map((file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')] as const),
);

describe('the layers of lib/', () => {
  const graph = importGraph(libSources);
  const layers = layersIn(fs.readFileSync(path.join(ROOT, ARCHITECTURE), 'utf8'));

  it('are drawn in docs/architecture.md, and every lib file is in one', () => {
    expect(layers.length).toBeGreaterThan(5);
    expect([...graph.keys()].filter((file) => layerOf(layers, file) < 0)).toEqual([]);
  });

  it('import only files that exist', () => {
    expect([...graph.values()].flat().filter((file) => file.endsWith('(no such file)'))).toEqual([]);
  });

  it('import only down: no file imports one in a layer above its own (type-only imports count)', () => {
    expect(upwardIn(graph, layers)).toEqual([]);
  });

  it('have no circles of imports between files (type-only imports count)', () => {
    expect(cyclesIn(graph)).toEqual([]);
  });
});

describe('the check of the layers', () => {
  const graphOf = (files: Record<string, string>) => importGraph(new Map(Object.entries(files)));

  it('reads type-only imports, `export ... from`, `import()` types and calls, and leaves packages aside', () => {
    const graph = graphOf({
      'lib/a.ts': [
        "import type { B } from './b';",
        "export { c } from './c';",
        "export type * from './d';",
        "type E = import('./e').E;",
        "const f = () => import('./f');",
        "import express from 'express';",
      ].join('\n'),
      'lib/b.ts': '',
      'lib/c.ts': '',
      'lib/d/index.ts': '',
      'lib/e.ts': '',
      'lib/f.ts': '',
    });
    expect(graph.get('lib/a.ts')).toEqual(['lib/b.ts', 'lib/c.ts', 'lib/d/index.ts', 'lib/e.ts', 'lib/f.ts']);
  });

  it('fails on a planted circle, naming its files once however the walk enters it', () => {
    const graph = graphOf({
      'lib/x/a.ts': "import type { B } from './b';",
      'lib/x/b.ts': "import { c } from '../c';",
      'lib/c.ts': "export { a } from './x/a';",
      'lib/d.ts': "import { c } from './c';",
    });
    expect(cyclesIn(graph)).toEqual(['lib/c.ts -> lib/x/a.ts -> lib/x/b.ts -> lib/c.ts']);
    expect(cyclesIn(graphOf({ 'lib/a.ts': "import './b';", 'lib/b.ts': "import './c';", 'lib/c.ts': '' }))).toEqual([]);
  });

  it('fails on an import up the layers, and allows one down or within a layer', () => {
    const layers = layersIn(
      [
        '## The layers',
        '',
        '| Layer | Files | What |',
        '| --- | --- | --- |',
        '| top | `lib/index.ts` | the index |',
        '| wires | `lib/wire/*/` | each wire |',
        '| kit | `lib/wire/kit/`, `lib/wire/list.ts` | the kit |',
        '| loop | `lib/loop/`, `lib/person/` | the loop |',
      ].join('\n'),
    );
    const graph = graphOf({
      'lib/index.ts': "export * from './loop/run';",
      'lib/wire/chat/chat.ts': "import '../kit/sse';",
      'lib/wire/kit/sse.ts': "import '../chat/chat';",
      'lib/wire/list.ts': '',
      'lib/loop/run.ts': "import '../person/ask';",
      'lib/person/ask.ts': "import type { Run } from '../loop/run';",
    });
    expect(['lib/index.ts', 'lib/wire/chat/chat.ts', 'lib/wire/kit/sse.ts'].map((f) => layerOf(layers, f))).toEqual([
      0, 1, 2,
    ]);
    expect(upwardIn(graph, layers)).toEqual(['lib/wire/kit/sse.ts -> lib/wire/chat/chat.ts']);
    expect(cyclesIn(graph)).toEqual([
      'lib/loop/run.ts -> lib/person/ask.ts -> lib/loop/run.ts',
      'lib/wire/chat/chat.ts -> lib/wire/kit/sse.ts -> lib/wire/chat/chat.ts',
    ]);
  });
});
