import os from 'node:os';
import { asLoopTools, catalogOf, catalogTools, type CatalogQuery } from '../fixtures/tool-catalog/catalog';
import heldOut from '../fixtures/tool-catalog/held-out-queries.json';
import queries from '../fixtures/tool-catalog/queries.json';
import { ToolIndex } from '../lib/tool-search/tool-index';
import { toolSearchTool } from '../lib/tool-search/tool-search-tool';
import type { LoopTool } from '../lib/loop/loop-tool';
import { percentile } from '../spec/helpers/percentile';

const toolsOf = (count: number): LoopTool[] => asLoopTools(catalogOf(count));

const median = (values: number[]) => percentile(values, 50);

/** One row: building the index, and one search's wall time (p50, p99) and CPU, over the catalog's queries. */
async function measure(count: number, rounds: number) {
  const builds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const tools = toolsOf(count);
    const started = performance.now();
    // a search waits for the index, built a slice at a time
    await ToolIndex.of(tools).search('', 1);
    builds.push(performance.now() - started);
  }
  const index = ToolIndex.of(toolsOf(count));
  const asked = (queries as CatalogQuery[]).map((q) => q.query);
  for (const query of asked) await index.search(query, 5);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    for (const query of asked) {
      const started = performance.now();
      await index.search(query, 5);
      times.push((performance.now() - started) * 1000);
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    tools: count,
    buildMs: median(builds),
    p50Us: median(times),
    p99Us: percentile(times, 99),
    cpuUs: (cpu.user + cpu.system) / times.length,
  };
}

/**
 * `npx ts-node --transpile-only bench/tool-search.ts [--rounds N]`: the loop's tool search (lib/tool-search) in this process, no server:
 * the index's build and one search at the catalog's size, 300 and 1,000 tools, with the catalog's queries; recall at 5
 * (the catalog's queries and the held-out ones);
 * and the bytes of turn 1's tool list for a 300-tool binding, all of them offered or only `tool_search`.
 */
async function benchToolSearch(argv: string[], log: (line: string) => void): Promise<void> {
  const rounds = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 50;
  log(`tool search: ${rounds} rounds of ${queries.length} queries; load average ${os.loadavg()[0].toFixed(2)}`);
  log('| tools | index build ms | search p50 µs | search p99 µs | CPU/search µs |');
  log('| ---: | ---: | ---: | ---: | ---: |');
  for (const count of [catalogTools().length, 300, 1000]) {
    const row = await measure(count, rounds);
    log(
      `| ${row.tools} | ${row.buildMs.toFixed(1)} | ${row.p50Us.toFixed(0)} | ${row.p99Us.toFixed(0)} | ${row.cpuUs.toFixed(0)} |`,
    );
  }
  const index = ToolIndex.of(asLoopTools(catalogTools()));
  for (const [name, asked] of [
    ["the catalog's queries", queries],
    ['held-out queries', heldOut],
  ] as [string, CatalogQuery[]][]) {
    let found = 0;
    for (const { query, expect } of asked)
      if ((await index.search(query, 5)).some((tool) => expect.includes(tool.name))) found++;
    log(`recall@5, ${name}: ${(found / asked.length).toFixed(3)} (${found} of ${asked.length})`);
  }
  const all = Buffer.byteLength(JSON.stringify(toolsOf(300)));
  const offered = Buffer.byteLength(JSON.stringify([toolSearchTool('bm25', 5)]));
  log(
    `300 tools: ${all} bytes of tool definitions offered whole, ${offered} bytes for tool_search alone (${((offered / all) * 100).toFixed(2)}%)`,
  );
  log(`load average after: ${os.loadavg()[0].toFixed(2)}`);
}

void benchToolSearch(process.argv.slice(2), (line) => console.log(line));
