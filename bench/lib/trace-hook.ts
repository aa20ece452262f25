import { createHook } from 'node:async_hooks';
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * Loaded with `--require` into a gateway by `bench/trace.ts`: while on (the ask `trace`, payload `{ on: true }`),
 * every async resource created and every callback the event loop runs, by type (async_hooks), and the time between
 * two callbacks run from the event loop itself (the process waiting in libuv: for I/O, a timer or its check phase),
 * by the type of the callback that ended the wait. `{ on: false }` answers the counts and stops.
 */
const inits = new Map<string, number>();
const callbacks = new Map<string, number>();
const waits = new Map<string, { count: number; ms: number }>();
const typeOf = new Map<number, string>();
let on = false;
let depth = 0;
let lastTopAfter = 0;
let startedAt = 0;
let cpuAt = process.cpuUsage();

/**
 * The critical path of a turn, from the socket reads and writes: the gateway's time from the client's request (or
 * the upstream's reply) to its next write to the upstream (or to the client's answer).
 */
const upstreamPorts = new Set(
  ['BENCH_UPSTREAM', 'BENCH_UPSTREAM_RESPONSES', 'BENCH_UPSTREAM_MESSAGES', 'BENCH_UPSTREAM_GEMINI'].map((name) =>
    Number(new URL(process.env[name] ?? 'http://x:1').port),
  ),
);
const spans: Record<string, number[]> = { toUpstream: [], toClient: [] };
let lastRead = 0;
let lastReadPeer = '';
/** the local ports of the self-call's own sockets (the floor's), whose server ends are not the client's */
const selfPorts = new Set<number | undefined>();
function peerOf(socket: net.Socket): 'upstream' | 'client' | 'self' {
  if (upstreamPorts.has(socket.remotePort ?? 0)) return 'upstream';
  if ((socket as net.Socket & { server?: unknown }).server) return selfPorts.has(socket.remotePort) ? 'self' : 'client';
  selfPorts.add(socket.localPort);
  return 'self';
}
function wrote(socket: net.Socket): void {
  if (!on || lastRead === 0) return;
  const peer = peerOf(socket);
  if (peer === 'self') return;
  const now = performance.now();
  mark(peer === 'upstream' ? 'upstream.write' : 'client.write');
  spans[peer === 'upstream' ? 'toUpstream' : 'toClient'].push(now - lastRead);
  lastRead = 0;
}
function read(socket: net.Socket): void {
  if (!on) return;
  const peer = peerOf(socket);
  if (peer === 'self') return;
  lastRead = performance.now();
  lastReadPeer = peer;
  markedThisTurn = new Set();
}
/**
 * `globalThis.__mark?.(label)`, called from a locally patched lib/ (never committed): each label's time after the
 * upstream's last reply (or the client's request), the first time per turn; the server's `request` events and
 * `res.end()` calls are marked here.
 */
const marks = new Map<string, number[]>();
let markedThisTurn = new Set<string>();
function mark(name: string): void {
  const label = lastReadPeer === 'client' ? `request: ${name}` : name;
  if (!on || lastRead === 0 || markedThisTurn.has(label)) return;
  markedThisTurn.add(label);
  const list = marks.get(label) ?? [];
  list.push(performance.now() - lastRead);
  marks.set(label, list);
}
(globalThis as unknown as { __mark: typeof mark }).__mark = mark;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
  const req = args[0] as http.IncomingMessage;
  // a client's request (not a self-call: no marker, not the floor's proxy route) starts a loop's first turn
  if (event === 'request' && on && !req.headers['x-mcp-internal'] && !req.url?.startsWith('/upstream')) {
    lastRead = performance.now();
    lastReadPeer = 'client';
    markedThisTurn = new Set();
  } else if (event === 'request') mark('server.request');
  return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
} as typeof emit;
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (this: http.ServerResponse, ...args: unknown[]) {
  mark('response.end');
  return (end as (...a: unknown[]) => unknown).apply(this, args);
} as typeof end;

const proto = net.Socket.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const method of ['_writev', '_write']) {
  const original = proto[method];
  proto[method] = function (this: net.Socket, ...args: unknown[]) {
    wrote(this);
    return original.apply(this, args);
  };
}
const push = proto.push;
proto.push = function (this: net.Socket, ...args: unknown[]) {
  if (args[0] !== null) read(this);
  return push.apply(this, args);
};

const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

const hook = createHook({
  init(asyncId, type) {
    typeOf.set(asyncId, type);
    if (on) add(inits, type);
  },
  before(asyncId) {
    const type = typeOf.get(asyncId) ?? 'unknown';
    if (on) {
      add(callbacks, type);
      if (depth === 0 && lastTopAfter > 0) {
        const wait = waits.get(type) ?? { count: 0, ms: 0 };
        wait.count += 1;
        wait.ms += performance.now() - lastTopAfter;
        waits.set(type, wait);
      }
    }
    depth += 1;
  },
  after() {
    depth -= 1;
    if (depth === 0) lastTopAfter = performance.now();
  },
  destroy(asyncId) {
    typeOf.delete(asyncId);
  },
  promiseResolve() {},
});
// TRACE_HOOKS=0: the times only (async_hooks slow every callback, the promise-heavy code most)
if (process.env.TRACE_HOOKS !== '0') hook.enable();

process.on('message', (message: { id?: number; type?: string; payload?: { on: boolean } }) => {
  if (message?.type !== 'trace' || typeof message.id !== 'number') return;
  if (message.payload?.on) {
    for (const map of [inits, callbacks, waits]) map.clear();
    for (const list of Object.values(spans)) list.length = 0;
    marks.clear();
    on = true;
    lastTopAfter = 0;
    startedAt = performance.now();
    cpuAt = process.cpuUsage();
    process.send?.({ id: message.id, result: { pid: process.pid } });
    return;
  }
  on = false;
  const cpu = process.cpuUsage(cpuAt);
  process.send?.({
    id: message.id,
    result: {
      wallMs: performance.now() - startedAt,
      cpuMs: (cpu.user + cpu.system) / 1000,
      inits: Object.fromEntries(inits),
      callbacks: Object.fromEntries(callbacks),
      waits: Object.fromEntries(waits),
      marks: Object.fromEntries(
        [...marks].map(([label, list]) => [label, [list.sort((a, b) => a - b)[list.length >> 1], list.length]]),
      ),
      spans: Object.fromEntries(
        Object.entries(spans).map(([name, list]) => [name, list.sort((a, b) => a - b)[list.length >> 1] ?? NaN]),
      ),
    },
  });
});
