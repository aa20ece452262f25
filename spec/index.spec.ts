import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as api from '../lib';

const INDEX = path.join(__dirname, '..', 'lib', 'index.ts');

describe('the package entry (lib/index.ts)', () => {
  it('exports the public functions and the error class, and nothing else at run time', () => {
    expect(Object.keys(api).sort()).toEqual([
      'AgentLoopError',
      'agentLoop',
      'createGateway',
      'isInternalRequest',
      'llmJudge',
      'localTrellis',
      'mcpTrellis',
      'rulesJudge',
      'skipWhenInternal',
      'webSearchTrellis',
    ]);
    for (const [name, value] of Object.entries(api)) expect([name, typeof value]).toEqual([name, 'function']);
  });

  it('exports the one error class the package throws', () => {
    expect(new api.AgentLoopError('ERR_AGENT_LOOP_X', 'x')).toBeInstanceOf(Error);
  });

  it('only re-exports: every statement is an export from another module', () => {
    const source = ts.createSourceFile(INDEX, fs.readFileSync(INDEX, 'utf8'), ts.ScriptTarget.ES2022);
    const notReExports = source.statements
      .filter((statement) => !(ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined))
      .map((statement) => statement.getText(source));
    expect(notReExports).toEqual([]);
  });
});
