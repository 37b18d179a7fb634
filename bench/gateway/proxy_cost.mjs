// What a backend hook costs (issue: the application backend), measured
// against the same operation without the hook, in the same run:
//
//  P  publish: one heraldd, two namespaces, `plain:` and `proxied:`
//     (publish_proxy = true, the backend answering {"result":{}}). C
//     connections each publish with W publications in flight; rounds
//     alternate plain and proxied so that machine drift hits both. Per
//     mode: publications per second, heraldd CPU per publication (from
//     /proc/<pid>/stat), the backend's CPU per publication, and the latency
//     of a publish alone (W = 1, one connection: p50/p99 from send to reply).
//  C  connect: two heraldd, one plain (dev mode: {"connect":{"user"}}) and
//     one with proxy.connect_url (a session cookie the backend reads).
//     C clients at a time open a WebSocket, connect and close; rounds
//     alternate. Per mode: connects per second and heraldd CPU per connect.
//
//   node bench/gateway/proxy_cost.mjs HERALDD [--seconds S] [--rounds R]
//        [--conns C] [--window W] [--latency N]
//
// The load generator (this process, one thread) shares the machine's cores
// with heraldd and the backend: the report prints each one's CPU, so that
// a run limited by the generator says so. Bounded: gives up after 300 s and
// kills every child it started.
import { spawnTied } from '../../tests/support/tied_child.mjs';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const args = process.argv.slice(2);
const heraldd = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const SECONDS = opt('--seconds', 3);
const ROUNDS = opt('--rounds', 3);
const CONNS = opt('--conns', 8);
const WINDOW = opt('--window', 16);
const LATENCY_N = opt('--latency', 2000);
if (!heraldd) {
  console.error('usage: proxy_cost.mjs HERALDD [--seconds S] [--rounds R] [--conns C] [--window W] [--latency N]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const children = [];
const tmp = mkdtempSync(join(tmpdir(), 'herald-proxy-cost-'));
const cleanup = () => {
  for (const c of children) c.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
};
const guard = setTimeout(() => {
  console.error('proxy_cost: gave up after 300 s');
  cleanup();
  process.exit(1);
}, 300_000);

// Starts a child and resolves with {proc, port} once it prints its port.
function start(cmd, argv, pattern) {
  return new Promise((resolve, reject) => {
    const proc = spawnTied(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(proc);
    let out = '';
    const onData = (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) resolve({ proc, port: Number(m[1]) });
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`${cmd} exited (${code}):\n${out}`)));
  });
}
const HERALDD_PORT = /listening[^\n]*?127\.0\.0\.1:(\d+)/;

// CPU seconds (user + system) a process has used so far.
const TICK = 100; // USER_HZ on Linux
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// A protocol connection: send a command, get its reply.
function open(port, headers = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers, perMessageDeflate: false });
    const waiting = new Map();
    let nextId = 1;
    ws.on('message', (data) => {
      for (const line of String(data).split('\n')) {
        if (!line) continue;
        const m = JSON.parse(line);
        const done = m.id !== undefined && waiting.get(m.id);
        if (done) {
          waiting.delete(m.id);
          done(m);
        }
      }
    });
    ws.on('error', reject);
    ws.on('open', () => resolve({
      ws,
      request(cmd) {
        const id = nextId++;
        return new Promise((r) => {
          waiting.set(id, r);
          ws.send(JSON.stringify({ id, ...cmd }));
        });
      },
    }));
  });
}
const mustResult = (m, what) => {
  if (!m.result) throw new Error(`${what}: ${JSON.stringify(m)}`);
  return m;
};

const backend = await start(process.execPath, [join(here, 'bench_backend.mjs')], /backend listening port=(\d+)/);
const url = (hook) => `http://127.0.0.1:${backend.port}/${hook}`;
const conf = join(tmp, 'proxy-cost.toml');
writeFileSync(conf, '[namespaces.proxied]\npublish_proxy = true\n');
const common = ['--server.listen', '127.0.0.1:0', '--client.publish_rate', '1000000',
  '--client.command_rate', '1000000', '--proxy.max_in_flight', '100000'];
const pubServer = await start(heraldd, ['--config', conf, '--proxy.publish_url', url('publish'), ...common], HERALDD_PORT);
const plainConnect = await start(heraldd, [...common], HERALDD_PORT);
const hookConnect = await start(heraldd, ['--proxy.connect_url', url('connect'), ...common], HERALDD_PORT);

// ---- P: publish
const publishers = [];
for (let i = 0; i < CONNS; i++) {
  const c = await open(pubServer.port);
  mustResult(await c.request({ connect: { user: `p${i}` } }), 'connect');
  publishers.push(c);
}
// Each connection keeps WINDOW publishes in flight for `seconds`.
async function publishPhase(ns) {
  const cpu0 = cpuSeconds(pubServer.proc.pid);
  const b0 = cpuSeconds(backend.proc.pid);
  const g0 = selfCpu();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let done = 0;
  await Promise.all(publishers.map(async (c, i) => {
    const room = `${ns}:r${i}`;
    const lane = async () => {
      while (performance.now() < end) {
        mustResult(await c.request({ publish: { room, data: { text: 'hello' } } }), 'publish');
        ++done;
      }
    };
    await Promise.all(Array.from({ length: WINDOW }, lane));
  }));
  const secs = (performance.now() - t0) / 1000;
  return {
    rate: done / secs,
    heraldd_us: ((cpuSeconds(pubServer.proc.pid) - cpu0) / done) * 1e6,
    backend_us: ((cpuSeconds(backend.proc.pid) - b0) / done) * 1e6,
    generator_cpu: (selfCpu() - g0) / secs,
    heraldd_cpu: (cpuSeconds(pubServer.proc.pid) - cpu0) / secs,
  };
}
async function latency(ns) {
  const c = publishers[0];
  const samples = [];
  for (let i = 0; i < LATENCY_N; i++) {
    const t = performance.now();
    mustResult(await c.request({ publish: { room: `${ns}:lat`, data: { text: 'hello' } } }), 'publish');
    samples.push((performance.now() - t) * 1000);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.floor(samples.length * 0.99)] };
}

// ---- C: connect
let cookieN = 0;
async function connectPhase(server, proxied) {
  const cpu0 = cpuSeconds(server.proc.pid);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let done = 0;
  const lane = async () => {
    while (performance.now() < end) {
      const user = `u${cookieN++}`;
      const c = await open(server.port, proxied ? { Cookie: `session=${user}` } : {});
      mustResult(await c.request({ connect: proxied ? {} : { user } }), 'connect');
      await new Promise((r) => { c.ws.once('close', r); c.ws.close(); });
      ++done;
    }
  };
  await Promise.all(Array.from({ length: CONNS }, lane));
  const secs = (performance.now() - t0) / 1000;
  return { rate: done / secs, heraldd_us: ((cpuSeconds(server.proc.pid) - cpu0) / done) * 1e6 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { plain: [], proxied: [], connect_plain: [], connect_hook: [] };
await publishPhase('plain'); // warm-up: rooms opened, connections to the backend made
await publishPhase('proxied');
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? ['proxied', 'plain'] : ['plain', 'proxied'];
  for (const ns of order) {
    const x = await publishPhase(ns);
    runs[ns].push(x);
    console.error(`round ${r + 1} publish ${ns}: ${x.rate.toFixed(0)}/s, heraldd ${x.heraldd_us.toFixed(1)} us/pub, backend ${x.backend_us.toFixed(1)} us/pub, generator ${(x.generator_cpu * 100).toFixed(0)}% cpu`);
  }
}
const lat = { plain: await latency('plain'), proxied: await latency('proxied') };
for (const c of publishers) c.ws.close();
await connectPhase(plainConnect, false); // warm-up
await connectPhase(hookConnect, true);
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [[hookConnect, true], [plainConnect, false]] : [[plainConnect, false], [hookConnect, true]];
  for (const [server, proxied] of order) {
    const x = await connectPhase(server, proxied);
    runs[proxied ? 'connect_hook' : 'connect_plain'].push(x);
    console.error(`round ${r + 1} connect ${proxied ? 'hook' : 'plain'}: ${x.rate.toFixed(0)}/s, heraldd ${x.heraldd_us.toFixed(1)} us/connect`);
  }
}

const med = (k, f) => median(runs[k].map((x) => x[f]));
const report = {
  publish: {
    plain: { per_s: med('plain', 'rate'), heraldd_us: med('plain', 'heraldd_us'), latency_us: lat.plain },
    proxied: { per_s: med('proxied', 'rate'), heraldd_us: med('proxied', 'heraldd_us'), backend_us: med('proxied', 'backend_us'), latency_us: lat.proxied },
  },
  connect: {
    plain: { per_s: med('connect_plain', 'rate'), heraldd_us: med('connect_plain', 'heraldd_us') },
    hook: { per_s: med('connect_hook', 'rate'), heraldd_us: med('connect_hook', 'heraldd_us') },
  },
  settings: { seconds: SECONDS, rounds: ROUNDS, conns: CONNS, window: WINDOW, latency_n: LATENCY_N },
};
const p = report.publish;
const c = report.connect;
console.error('\n| | plain | through the hook | ratio |\n|---|---|---|---|');
console.error(`| publications/s (C=${CONNS}, W=${WINDOW}) | ${p.plain.per_s.toFixed(0)} | ${p.proxied.per_s.toFixed(0)} | ${(p.proxied.per_s / p.plain.per_s).toFixed(2)}x |`);
console.error(`| heraldd CPU per publication | ${p.plain.heraldd_us.toFixed(1)} us | ${p.proxied.heraldd_us.toFixed(1)} us | ${(p.proxied.heraldd_us / p.plain.heraldd_us).toFixed(2)}x |`);
console.error(`| backend CPU per publication | - | ${p.proxied.backend_us.toFixed(1)} us | |`);
console.error(`| publish latency alone, p50 / p99 | ${p.plain.latency_us.p50.toFixed(0)} / ${p.plain.latency_us.p99.toFixed(0)} us | ${p.proxied.latency_us.p50.toFixed(0)} / ${p.proxied.latency_us.p99.toFixed(0)} us | +${(p.proxied.latency_us.p50 - p.plain.latency_us.p50).toFixed(0)} us at p50 |`);
console.error(`| connects/s (C=${CONNS} at a time) | ${c.plain.per_s.toFixed(0)} | ${c.hook.per_s.toFixed(0)} | ${(c.hook.per_s / c.plain.per_s).toFixed(2)}x |`);
console.error(`| heraldd CPU per connect | ${c.plain.heraldd_us.toFixed(1)} us | ${c.hook.heraldd_us.toFixed(1)} us | ${(c.hook.heraldd_us / c.plain.heraldd_us).toFixed(2)}x |`);
console.log(JSON.stringify(report));
cleanup();
clearTimeout(guard);
