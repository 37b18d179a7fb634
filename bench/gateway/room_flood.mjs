// The fresh-room flood of the rooms-as-a-budget review, against a heraldd
// this script starts: one connection subscribes and unsubscribes N fresh
// room names (in one-frame batches), then asks history of N other fresh
// names; heraldd's RSS (VmRSS) is read before, after each flood, and again
// after a settle time. docs/benchmarks.md ("Rooms as a budget") has the
// figures.
//
//   node bench/gateway/room_flood.mjs HERALDD [--rooms N] [--batch B] [--settle-ms T] [-- FLAGS...]
//
// FLAGS go to heraldd (after --server.listen 127.0.0.1:PORT). A heraldd
// with client.command_rate needs a large --client.command_burst for the
// flood to be served rather than answered 111. Bounded: it gives up after
// 120 s and always kills the heraldd it started.
import { spawnTied } from '../../tests/support/tied_child.mjs';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import WebSocket from 'ws';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
const own = dash < 0 ? args : args.slice(0, dash);
const flags = dash < 0 ? [] : args.slice(dash + 1);
const heraldd = own[0];
const opt = (name, dflt) => {
  const i = own.indexOf(name);
  return i < 0 ? dflt : Number(own[i + 1]);
};
const rooms = opt('--rooms', 40000);
const batch = opt('--batch', 500);
const settleMs = opt('--settle-ms', 1500);
if (!heraldd) {
  console.error('usage: room_flood.mjs HERALDD [--rooms N] [--batch B] [--settle-ms T] [-- FLAGS]');
  process.exit(2);
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const rssKiB = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
};
const mb = (kib) => (kib / 1024).toFixed(1);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const port = await freePort();
const child = spawnTied(heraldd, ['--server.listen', `127.0.0.1:${port}`, ...flags], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
const guard = setTimeout(() => {
  console.error('room_flood: gave up after 120 s');
  child.kill('SIGKILL');
  process.exit(1);
}, 120_000);
await new Promise((resolve, reject) => {
  let out = '';
  const onData = (d) => {
    out += d;
    if (out.includes('listening')) resolve();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  child.on('exit', (code) => reject(new Error(`heraldd exited (${code}):\n${out}`)));
});

const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
await new Promise((r) => ws.on('open', r));
const waiting = new Map(); // id -> resolve
const errors = new Map(); // error code -> count
ws.on('message', (data) => {
  for (const line of String(data).split('\n')) {
    if (!line) continue;
    const m = JSON.parse(line);
    if (m.error) errors.set(m.error.code, (errors.get(m.error.code) ?? 0) + 1);
    const done = waiting.get(m.id);
    if (done) {
      waiting.delete(m.id);
      done();
    }
  }
});
let nextId = 1;
// Sends the commands in one frame and waits for every reply.
const frame = (cmds) => {
  const lines = [];
  const replies = cmds.map((c) => {
    const id = nextId++;
    lines.push(JSON.stringify({ id, ...c }));
    return new Promise((r) => waiting.set(id, r));
  });
  ws.send(lines.join('\n'));
  return Promise.all(replies);
};

await frame([{ connect: { user: 'flood' } }]);
const r0 = rssKiB(child.pid);
const t0 = Date.now();
for (let base = 0; base < rooms; base += batch) {
  const cmds = [];
  for (let i = base; i < Math.min(rooms, base + batch); i++) {
    cmds.push({ subscribe: { room: `fresh-${i}` } }, { unsubscribe: { room: `fresh-${i}` } });
  }
  await frame(cmds);
}
const t1 = Date.now();
const r1 = rssKiB(child.pid);
for (let base = 0; base < rooms; base += batch) {
  const cmds = [];
  for (let i = base; i < Math.min(rooms, base + batch); i++) cmds.push({ history: { room: `ghost-${i}` } });
  await frame(cmds);
}
const t2 = Date.now();
const r2 = rssKiB(child.pid);
await sleep(settleMs);
const r3 = rssKiB(child.pid);
const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
const roomsGauge = /^herald_rooms (\S+)/m.exec(metrics)?.[1] ?? '(no herald_rooms)';

console.log(`heraldd ${heraldd} ${flags.join(' ')}`);
console.log(`rss before:                         ${mb(r0)} MB`);
console.log(`after ${rooms} subscribe/unsubscribe pairs: ${mb(r1)} MB  (${t1 - t0} ms)`);
console.log(`after ${rooms} history of fresh names:   ${mb(r2)} MB  (${t2 - t1} ms)`);
console.log(`after ${settleMs} ms settle:              ${mb(r3)} MB; herald_rooms ${roomsGauge}`);
console.log(`error replies: ${JSON.stringify(Object.fromEntries(errors))}`);
ws.close();
child.kill('SIGTERM');
clearTimeout(guard);
