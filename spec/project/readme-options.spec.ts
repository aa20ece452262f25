import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gatewayOptions } from '../../lib/gateway/options';
import { docRows } from '../../lib/options/declaration';
import { loopOptions, optionsSchema } from '../../lib/options/agent-loop';

interface Described {
  type?: string;
  flags?: { default?: unknown; only?: boolean };
  keys?: Record<string, Described>;
  items?: Described[];
  matches?: { schema?: Described }[];
  rules?: { name: string; args?: { limit?: number } }[];
  allow?: unknown[];
}

interface Row {
  option: string;
  range: string;
  fallback: string;
}

/** The lines of the option table (docs/options.md). */
const tableLines = () =>
  readFileSync(path.join(__dirname, '..', '..', 'docs', 'options.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'));

/** The rows of the option table: the option's path (`bindings[].maxTurns`), its range and its default. */
function rows(): Row[] {
  return tableLines().map((line) => {
    const [option, range, fallback] = line.slice(2).split(' | ');
    return { option: /^`([^`]+)`/.exec(option)![1], range, fallback };
  });
}

const schema = optionsSchema.describe() as Described;

/** The schema of an option path, through unions and lists; undefined when the options have no such option. */
function schemaAt(option: string): Described | undefined {
  let nodes = [schema];
  for (const part of option.split('.')) {
    const [key, list] = [part.replace(/\[\]$/, ''), part.endsWith('[]')];
    nodes = nodes.flatMap(alternatives).flatMap((node) => (node.keys?.[key] ? [node.keys[key]] : []));
    if (list) nodes = nodes.flatMap((node) => node.items?.slice(0, 1) ?? []);
  }
  return nodes[0];
}

function alternatives(node: Described): Described[] {
  return node.matches ? node.matches.flatMap((match) => (match.schema ? alternatives(match.schema) : [])) : [node];
}

const limit = (node: Described, name: 'min' | 'max') => node.rules?.find((rule) => rule.name === name)?.args?.limit;

/** Rows for what only the gateway's JSON config carries (lib/gateway/options.ts's schema). */
const GATEWAY_ONLY = ['admin'];

/** An option's table line as its declaration says it: `|` escaped inside a cell, an empty cell left empty. */
function declaredLine(
  { option, range, fallback, does }: { option: string; range: string; fallback: string; does: string },
  where = '',
): string {
  return `| ${[`\`${option}\`${where}`, range, fallback, does].map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`.replace(
    '|  |',
    '| |',
  );
}

describe('the option table (docs/options.md)', () => {
  const table = rows();

  it('says of each option, row for row, what its declaration says (range, default and what it does)', () => {
    const declared = [
      ...docRows(loopOptions).map((row) => declaredLine(row)),
      ...docRows(gatewayOptions).map((row) => declaredLine(row, ' (gateway config only)')),
    ];
    expect([...tableLines()].sort()).toEqual(declared.sort());
  });

  it('has a row for every option agentLoop takes', () => {
    const options = Object.keys(schema.keys!);
    expect(
      options.filter(
        (option) =>
          !table.some(
            (row) =>
              row.option === option || row.option.startsWith(`${option}.`) || row.option.startsWith(`${option}[]`),
          ),
      ),
    ).toEqual([]);
  });

  it("names every key of a binding, in a row of its own or in the bindings[] row's shape", () => {
    const shape = table.find((row) => row.option === 'bindings[]')!.range;
    const keys = Object.keys(schemaAt('bindings[]')!.keys!);
    expect(
      keys.filter(
        (key) => !table.some((row) => row.option === `bindings[].${key}`) && !new RegExp(`\\b${key}\\b`).test(shape),
      ),
    ).toEqual([]);
  });

  it('names only options the schema has', () => {
    expect(
      table
        .filter((row) => !GATEWAY_ONLY.includes(row.option) && schemaAt(row.option) === undefined)
        .map((row) => row.option),
    ).toEqual([]);
  });

  it("gives each number option's range and default as the schema has them", () => {
    const numbers = table.flatMap((row) => {
      const node = schemaAt(row.option);
      return node?.type === 'number' ? [{ row, node }] : [];
    });
    expect(numbers.length).toBeGreaterThanOrEqual(15);
    for (const { row, node } of numbers) {
      const [min, max] = [limit(node, 'min'), limit(node, 'max')];
      const range = max === undefined ? `${min} or more` : `${min} to ${max}`;
      expect({ option: row.option, range: row.range.slice(0, range.length) }).toEqual({ option: row.option, range });
      if (node.flags?.default !== undefined)
        expect({ option: row.option, fallback: row.fallback.split(' ')[0] }).toEqual({
          option: row.option,
          fallback: String(node.flags.default),
        });
    }
  });

  it('lists every value of a choice option, and gives its default as the schema has it', () => {
    const choices = table.flatMap((row) => {
      const node = schemaAt(row.option);
      return node?.flags?.only && node.allow ? [{ row, node }] : [];
    });
    expect(choices.map(({ row }) => row.option)).toEqual(expect.arrayContaining(['selfCall', 'onClientDisconnect']));
    for (const { row, node } of choices) {
      for (const value of node.allow!.filter((value) => typeof value === 'string'))
        expect({ option: row.option, range: row.range }).toEqual({
          option: row.option,
          range: expect.stringContaining(`'${value}'`),
        });
      if (node.flags?.default !== undefined)
        expect({ option: row.option, fallback: row.fallback }).toEqual({
          option: row.option,
          fallback: expect.stringContaining(`'${node.flags.default}'`),
        });
    }
  });
});
