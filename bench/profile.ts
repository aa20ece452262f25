import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npx ts-node --transpile-only bench/profile.ts <file.cpuprofile> [--top N] [--from <function> [--skip-ms N]] [--callers <function>]`:
 * where a profiled gateway's CPU went,
 * by function (self time, as a share of the busy samples: idle and GC's own row apart), and by where the code lives
 * (this package, each node_modules package, Node's internals).
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
export interface Window {
  /** only samples from the first one under a function of this name on (the process's start-up left out) */
  from?: string;
  /** and this many ms after it (the warm-up) */
  skipMs?: number;
  /** how many functions to list */
  top: number;
  /** the callers of functions of this name (the nearest 4 frames in this package), by their share */
  callers?: string;
}

const IDLE = new Set(['(idle)', '(program)']);
const PACKAGE = 'this package (lib/)';

/** Where a frame's code lives: the package's own files, one node_modules package, Node's internals, or V8. */
export function placeOf(url: string): string {
  if (url === '') return 'V8 / native';
  if (url.startsWith('node:')) return 'Node internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + 'node_modules/'.length).split('/');
    if (scope === '.cache') return url.includes('/lib/') ? PACKAGE : 'bench and fixtures';
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  return url.includes('/lib/') ? PACKAGE : 'other';
}

/** Each node's self time in µs, over the samples of the window. */
function selfTimes(
  profile: CpuProfile,
  parents: Map<number, number>,
  byId: Map<number, ProfileNode>,
  window: Window,
): Map<number, number> {
  const under = (id: number, name: string) => {
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at))
      if (byId.get(at)?.callFrame.functionName === name) return true;
    return false;
  };
  const selfUs = new Map<number, number>();
  let clock = 0;
  let start = window.from ? Infinity : 0;
  profile.samples.forEach((id, i) => {
    clock += profile.timeDeltas[i] ?? 0;
    if (start === Infinity && under(id, window.from as string)) start = clock + (window.skipMs ?? 0) * 1000;
    if (clock >= start) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return selfUs;
}

export function summarise(profile: CpuProfile, window: Window): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const selfUs = selfTimes(profile, parents, byId, window);
  const callers = new Map<string, number>();
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  const own = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
    if (IDLE.has(functionName)) continue;
    busy += us;
    const file = url === '' ? '' : ` ${path.basename(url)}:${lineNumber + 1}`;
    const key = `${functionName || '(anonymous)'}${file}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    if (functionName === window.callers) {
      const chain: string[] = [];
      for (let at = parents.get(id); at !== undefined && chain.length < 4; at = parents.get(at)) {
        const frame = (byId.get(at) as ProfileNode).callFrame;
        if (placeOf(frame.url) === PACKAGE) chain.push(frame.functionName || '(anonymous)');
      }
      const name = chain.join(' < ') || '?';
      callers.set(name, (callers.get(name) ?? 0) + us);
    }
    const place = functionName === '(garbage collector)' ? 'GC' : placeOf(url);
    places.set(place, (places.get(place) ?? 0) + us);
    if (place === PACKAGE) own.set(key, (own.get(key) ?? 0) + us);
  }
  const share = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
  const rows = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, us]) => `| ${name.replace(/\|/g, '/')} | ${share(us)} |`);
  return [
    `busy: ${(busy / 1e6).toFixed(2)} s of CPU in ${profile.samples.length} samples`,
    '',
    '| where | self |',
    '| --- | --- |',
    ...rows(places, 20),
    '',
    '| function | self |',
    '| --- | --- |',
    ...rows(functions, window.top),
    '',
    `| function of ${PACKAGE} | self |`,
    '| --- | --- |',
    ...rows(own, window.top),
    ...(window.callers ? ['', `| callers of ${window.callers} | self |`, '| --- | --- |', ...rows(callers, 20)] : []),
  ];
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const [file] = argv.filter((arg, i) => !arg.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  const window: Window = {
    top: Number(value('--top') ?? 30),
    from: value('--from'),
    skipMs: Number(value('--skip-ms') ?? 0),
    callers: value('--callers'),
  };
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, window).join('\n'));
}
