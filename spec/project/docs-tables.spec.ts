import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** `file:line` of each table row that starts a table without the `| --- |` line a Markdown table needs under its head */
function headlessRows(file: string): string[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  let fenced = false;
  return lines.flatMap((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    const starts = !fenced && line.startsWith('|') && !(lines[i - 1] ?? '').startsWith('|');
    return starts && !/^\|( *:?-+:? *\|)+ *$/.test(lines[i + 1] ?? '') ? [`${file}:${i + 1}`] : [];
  });
}

describe('the docs’ tables', () => {
  it('are whole: no row split off its table by a blank line (it would show as text)', () => {
    const files = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)];
    expect(files.flatMap(headlessRows)).toEqual([]);
  });
});
