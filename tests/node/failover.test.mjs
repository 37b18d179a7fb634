// Redis failover under load, checked from outside by an independent client.
//
// Redis replicates asynchronously, so a publication heraldd acknowledged can
// vanish when a replica takes over. What must hold whatever happens: each
// subscriber either receives every publication whose publish was
// acknowledged, exactly once and in offset order, or is told that it cannot
// (a resubscribe with `since` answers `recovered: false`, after which it
// follows the new stream without gaps or duplicates); it is never shown a
// gap, or an offset reused with other data, as if the stream were
// continuous. Publishers get error 114 while no master is reachable, and no
// command goes unanswered for 10 s.
//
// Two failovers, each with two heraldd nodes, 4 rooms, 20 subscribers spread
// over both nodes (each in every room; on any close they reconnect to the
// other node and resubscribe with `since`) and one publisher on node A
// publishing numbered messages, 500 a second round-robin over the rooms:
//  - Redis Sentinel: a master, a replica and one Sentinel. The replica's
//    link is cut (REPLICAOF a port nobody listens on, so Sentinel still
//    counts it) and the master SIGKILLed after 100 more acknowledgements:
//    those exist only on the dead master, so the promoted replica has
//    certainly lost acknowledged publications, as asynchronous replication
//    can lose them.
//  - Redis Cluster, three masters with a replica each: the master of one
//    room's slot is SIGKILLed and its replica promoted.
// Traffic goes on until every room has 50 acknowledgements again after the
// promotion, then everyone must catch up with each room's last
// acknowledged publication, and the checker (judge) decides per subscriber
// and room from what the publisher was acknowledged (room, epoch, offset, n)
// and what the subscriber was shown. A 3005 close is counted, not judged:
// the resubscribe after it says whether continuity held, and its
// recovered:true is a promise checked like any other. A publish refused
// with 114 that was committed all the same (Redis went away before its
// reply) is counted, not a problem: 114 does not say nothing happened. The
// code speaks the protocol from docs/protocol.md itself (nothing shared
// with heraldd or ws_client.mjs).
// Run by ctest (node_failover) with HERALDD set to the binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { spawnTied } from '../support/tied_child.mjs';
import { waitFor } from '../support/wait.mjs';

const HERALDD = process.env.HERALDD;
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const ROOMS = 4;
const SUBSCRIBERS = 20;
const PUBLISH_RATE = 500;       // per second, all rooms together
const REPLY_TIMEOUT_MS = 10000; // longer without a reply is a hang
const TRAFFIC_BEFORE = 1000;    // acknowledgements before Redis is broken
const ACKS_AFTER = 50;          // per room after the promotion, to stop traffic

const HERALDD_FLAGS = ['--cluster.mode', 'redis', '--cluster.redis.reconnect_max', '200ms',
  '--client.publish_rate', '100000', '--client.command_rate', '100000',
  // Far more than the traffic, so that only a lost stream can make a
  // recovery answer recovered:false.
  '--rooms.history_size', '100000'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls `fn` until it is truthy (true) or `timeoutMs` passed (false).
async function until(fn, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return true;
    if (Date.now() > end) return false;
    await sleep(50);
  }
}

// Orders the events of every connection: acknowledgements against the
// moments subscribers were told.
let clock = 0;
const stamp = () => ++clock;

// ---------------------------------------------------------------- Redis

// A loopback port the kernel just handed out and released.
async function freePort(below = 65536) {
  for (;;) {
    const server = net.createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address();
    server.close();
    await once(server, 'close');
    if (port < below) return port;
  }
}

function redisCli(args, timeout = REPLY_TIMEOUT_MS) {
  return new Promise((resolve, reject) => {
    execFile(REDIS_CLI, args, { timeout }, (err, stdout, stderr) => {
      if (err) reject(new Error(`redis-cli ${args.join(' ')}: ${err.message} ${stderr}`));
      else resolve(stdout.trim());
    });
  });
}
const ask = (port, ...args) => redisCli(['-h', '127.0.0.1', '-p', String(port), ...args]);
// `ask`, '' when the server does not answer (it is down, or not yet up).
const tryAsk = (port, ...args) => ask(port, ...args).catch(() => '');
const says = async (port, text, ...args) => (await tryAsk(port, ...args)).includes(text);
const role = async (port) => (await tryAsk(port, 'role')).split('\n')[0];

// A redis-server started with `args`, resolved once `ready` is in its log.
function spawnRedis(args, ready) {
  return new Promise((resolve, reject) => {
    const proc = spawnTied(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`redis-server did not start:\n${out}`));
    }, 20000);
    const onData = (chunk) => {
      out += chunk;
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(proc);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
}

// The processes of one test, in one temporary directory; close() stops
// heraldd as an operator would (it must exit 0), kills every redis-server
// and removes the directory.
class Lab {
  constructor(name) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `herald-failover-${name}-`));
    this.redises = [];
    this.heraldds = [];
  }

  // `makeArgs(port, dir)` gives the arguments; a port taken meanwhile is
  // retried with another.
  async redis(makeArgs, { below, ready = /Ready to accept connections/ } = {}) {
    for (let attempt = 1; ; ++attempt) {
      const port = await freePort(below);
      const dir = path.join(this.dir, String(port));
      fs.mkdirSync(dir, { recursive: true });
      try {
        const proc = await spawnRedis(makeArgs(port, dir), ready);
        const node = { port, proc };
        this.redises.push(node);
        return node;
      } catch (e) {
        if (attempt === 5) throw e;
      }
    }
  }

  // A replica's first sync starts at once (not after the default 5 s).
  plainRedis(extra = []) {
    return this.redis((port, dir) => ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
      '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0', ...extra]);
  }

  // Sentinel rewrites its configuration file, so it gets one of its own.
  sentinel(masterPort) {
    return this.redis((port, dir) => {
      const conf = path.join(dir, 'sentinel.conf');
      fs.writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
        `sentinel monitor herald 127.0.0.1 ${masterPort} 1`,
        'sentinel down-after-milliseconds herald 1000',
        'sentinel failover-timeout herald 5000', ''].join('\n'));
      return [conf, '--sentinel'];
    }, { ready: /\+monitor master herald/ });
  }

  // Below 55000: the cluster bus listens on the port + 10000.
  clusterRedis() {
    return this.redis((port, dir) => ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
      '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf'),
      '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no',
      '--repl-diskless-sync-delay', '0'], { below: 55000 });
  }

  async heraldd(flags) {
    const node = await startHeraldd(HERALDD, flags);
    this.heraldds.push(node);
    return node;
  }

  async kill(node) {
    if (node.proc.exitCode !== null || node.proc.signalCode !== null) return;
    const exited = once(node.proc, 'exit');
    node.proc.kill('SIGKILL');
    await exited;
  }

  async close() {
    try {
      const stops = await Promise.allSettled(this.heraldds.map((h) => stopHeraldd(h.proc)));
      const failed = stops.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      await Promise.all(this.redises.map((r) => this.kill(r)));
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

// ------------------------------------------------------ Herald protocol

class NoReply extends Error {}
class Closed extends Error {}

// One WebSocket connection speaking docs/protocol.md: commands with ids,
// replies matched by id, `pub` pushes to onPub, in the order they arrive.
class Connection {
  static async open(port, user) {
    const conn = new Connection(port);
    try {
      await new Promise((resolve, reject) => {
        conn.ws.once('open', resolve);
        conn.closed.then((code) => reject(new Closed(`closed (${code}) before opening`)));
      });
      const r = await conn.request('connect', { user });
      if (!r.result) throw new Error(`connect answered ${JSON.stringify(r)}`);
      return conn;
    } catch (e) {
      conn.close();
      throw e;
    }
  }

  constructor(port) {
    this.ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { perMessageDeflate: false });
    this.nextId = 1;
    this.pending = new Map();
    this.onPub = () => {};
    this.closeCode = null;
    this.ws.on('error', () => {});  // 'close' follows
    this.ws.on('message', (data) => this.receive(String(data)));
    this.closed = new Promise((resolve) => this.ws.on('close', (code) => {
      this.closeCode = code;
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Closed(`connection closed (${code}) before the reply`));
      }
      this.pending.clear();
      resolve(code);
    }));
  }

  get open() { return this.closeCode === null; }

  // Resolves with the reply ({result} or {error}); `onReply` runs as it
  // arrives, before any later message of the connection is handled.
  request(command, params, onReply = () => {}) {
    return new Promise((resolve, reject) => {
      if (!this.open || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Closed('connection closed'));
        return;
      }
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new NoReply(`${command} had no reply within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, onReply });
      this.ws.send(JSON.stringify({ id, [command]: params }));
    });
  }

  receive(text) {
    for (const line of text.split('\n')) {
      if (!line) continue;
      const m = JSON.parse(line);
      if (m.id !== undefined) {
        const p = this.pending.get(m.id);
        if (!p) continue;  // timed out already
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        p.onReply(m);
        p.resolve(m);
      } else if (m.pub) {
        this.onPub(m.pub);
      }
    }
  }

  close() { this.ws.terminate(); }
}

// ------------------------------------------------------------ publisher

// Publishes {n, room} round-robin over `rooms` and keeps every outcome:
// acked (epoch, offset, and the stamp of its arrival), refused (code,
// message), hung (no reply in time) or cut (the connection closed first).
class Publisher {
  constructor(port, rooms) {
    this.port = port;
    this.rooms = rooms;
    this.outcomes = [];  // outcome of n at n - 1
    this.inflight = new Set();
    this.closes = [];
  }

  async open() {
    const conn = await Connection.open(this.port, 'publisher');
    conn.closed.then((code) => { if (!this.stopped) this.closes.push(code); });
    this.conn = conn;
  }

  start() {
    const batch = PUBLISH_RATE / 50;
    this.timer = setInterval(() => this.tick(batch), 20);
  }

  tick(batch) {
    if (!this.conn.open) {
      this.reopening ??= this.open().catch(() => {}).finally(() => { this.reopening = null; });
      return;
    }
    for (let i = 0; i < batch; ++i) this.publish(this.rooms[this.outcomes.length % this.rooms.length]);
  }

  publish(room) {
    const o = { n: this.outcomes.length + 1, room, state: 'pending' };
    this.outcomes.push(o);
    const done = this.conn.request('publish', { room, data: { n: o.n, room } }, ({ result, error }) => {
      if (result) Object.assign(o, { state: 'acked', epoch: result.epoch, offset: result.offset, seq: stamp() });
      else Object.assign(o, { state: 'refused', code: error.code, message: error.message });
    }).catch((e) => Object.assign(o, { state: e instanceof NoReply ? 'hung' : 'cut', message: e.message }));
    this.inflight.add(done);
    done.finally(() => this.inflight.delete(done));
  }

  // Stops publishing; resolves when every publish has its outcome.
  async stop() {
    clearInterval(this.timer);
    await Promise.allSettled([...this.inflight]);
    this.stopped = true;
    this.conn?.close();
  }

  acked(room) { return this.outcomes.filter((o) => o.state === 'acked' && (!room || o.room === room)); }
  ackedAfter(n, room) { return this.acked(room).filter((o) => o.n > n).length; }
  lastAcks() {
    const last = new Map();
    for (const a of this.acked()) if (!last.has(a.room) || a.seq > last.get(a.room).seq) last.set(a.room, a);
    return last;
  }
  outcome(n) { return Number.isInteger(n) ? this.outcomes[n - 1] : undefined; }
  count(state, code) {
    return this.outcomes.filter((o) => o.state === state && (code === undefined || o.code === code)).length;
  }

  // What broke the promise to the publisher: errors other than 114,
  // hangs, replies lost with a connection.
  problems() {
    const groups = new Map();
    for (const o of this.outcomes) {
      if (o.state === 'acked' || (o.state === 'refused' && o.code === 114)) continue;
      const what = o.state === 'refused' ? `publishes refused with error ${o.code} ("${o.message}")`
        : o.state === 'hung' ? `publishes had no reply within ${REPLY_TIMEOUT_MS} ms`
          : 'publishes lost their connection before the reply';
      const g = groups.get(what) ?? { count: 0, first: o.n };
      g.count += 1;
      groups.set(what, g);
    }
    const found = [...groups].map(([what, g]) => `publisher: ${g.count} ${what}, the first n=${g.first}`);
    if (this.closes.length) found.push(`publisher: heraldd closed its connection (codes ${this.closes.join(', ')})`);
    return found;
  }
}

// ----------------------------------------------------------- subscriber

// One subscriber's view of one room: where it is in the stream, what it
// was shown at each (epoch, offset), and its segments: runs of the stream
// it was shown as continuous, each started by the first subscribe or by a
// resubscribe that answered recovered:false (`told`, stamped `seq`).
// Whatever breaks continuity within a segment is a problem at once.
class RoomView {
  constructor(name, room) {
    this.label = `${name} ${room}`;
    this.room = room;
    this.pos = null;  // {epoch, offset} of the last publication shown
    this.segments = [];
    this.seen = new Map();  // "epoch/offset" -> n
    this.problems = [];
    this.live = false;  // subscribed on the current connection
    this.recovered = 0;
    this.notRecovered = 0;
  }

  problem(text) { this.problems.push(`${this.label}: ${text}`); }

  begin(epoch, offset, told) {
    this.segments.push({ epoch, start: offset, told, seq: stamp() });
    this.pos = { epoch, offset };
  }

  subscribed({ epoch, offset, recovered, publications = [] }) {
    this.live = true;
    if (this.pos === null) {
      this.begin(epoch, offset, false);
      return;
    }
    const from = `${this.pos.epoch}/${this.pos.offset}`;
    if (!recovered) {
      this.notRecovered += 1;
      if (publications.length) {
        this.problem(`resubscribe from ${from} answered recovered:false with ${publications.length} publications`);
      }
      this.begin(epoch, offset, true);
      return;
    }
    this.recovered += 1;
    if (epoch !== this.pos.epoch) {
      this.problem(`resubscribe from ${from} answered recovered:true in another epoch, ${epoch}`);
    }
    for (const p of publications) this.delivered(p);
    if (this.pos.epoch !== epoch || this.pos.offset !== offset) {
      this.problem(`resubscribe from ${from} answered recovered:true at ${epoch}/${offset}, ` +
        `but its publications end at ${this.pos.epoch}/${this.pos.offset}`);
      this.pos = { epoch, offset };
    }
  }

  delivered(pub) {
    const key = `${pub.epoch}/${pub.offset}`;
    const n = pub.data?.n;
    if (pub.data?.room !== this.room) {
      this.problem(`${key} carries ${JSON.stringify(pub.data)}, not a publication of this room`);
    }
    if (this.pos === null) {
      this.problem(`${key} (n=${n}) arrived before the subscribe's reply`);
      this.begin(pub.epoch, pub.offset - 1, false);
    }
    const before = this.seen.get(key);
    if (before === n) this.problem(`${key} (n=${n}) shown twice`);
    else if (before !== undefined) {
      this.problem(`${key} shown as n=${before}, then as n=${n}: an offset reused in one epoch`);
    }
    else this.seen.set(key, n);
    const { epoch, offset } = this.pos;
    if (pub.epoch !== epoch) {
      this.problem(`after ${epoch}/${offset} came ${key} (n=${n}): another epoch, and nobody said so`);
      this.begin(pub.epoch, pub.offset - 1, false);
    } else if (pub.offset <= offset) {
      this.problem(`after ${epoch}/${offset} came ${key} (n=${n}): the stream went back`);
    } else if (pub.offset > offset + 1) {
      this.problem(`after ${epoch}/${offset} came ${key} (n=${n}): ` +
        `${epoch} ${span(offset + 1, pub.offset - 1)} missing, shown as continuous`);
    }
    this.pos = { epoch: pub.epoch, offset: pub.offset };
  }

  received(ack) { return this.seen.get(`${ack.epoch}/${ack.offset}`) === ack.n; }

  // Whether this view was told it would not get `ack`. It is owed whatever
  // its last segment's epoch holds after that segment's start; anything
  // else is accounted for by a recovered:false that started a segment at or
  // past it in its epoch, or that came after it was acknowledged.
  toldOf(ack) {
    const last = this.segments.at(-1);
    if (ack.epoch === last.epoch && ack.offset > last.start) return false;
    return this.segments.some((s) => s.told &&
      ((s.epoch === ack.epoch && ack.offset <= s.start) || s.seq > ack.seq));
  }

  get told() { return this.segments.some((s) => s.told); }
}

// A client in every room; on any close it reconnects, to the other node,
// and resubscribes each room with `since` its last position there.
class Subscriber {
  constructor(name, ports, rooms, node) {
    this.name = name;
    this.ports = ports;
    this.node = node;
    this.views = new Map(rooms.map((room) => [room, new RoomView(name, room)]));
    this.closes = new Map();  // close code -> count
    this.stopping = false;
    this.running = this.run();
  }

  async run() {
    while (!this.stopping) {
      const conn = await this.connect();
      if (!conn) return;
      const code = await conn.closed;
      for (const v of this.views.values()) v.live = false;
      if (this.stopping) return;
      this.closes.set(code, (this.closes.get(code) ?? 0) + 1);
      this.node = 1 - this.node;
    }
  }

  async connect() {
    while (!this.stopping) {
      try {
        const conn = await Connection.open(this.ports[this.node], this.name);
        if (this.stopping) {
          conn.close();
          return null;
        }
        this.conn = conn;
        conn.onPub = (pub) => this.views.get(pub.room)?.delivered(pub);
        for (const view of this.views.values()) this.subscribe(conn, view);
        return conn;
      } catch {
        this.node = 1 - this.node;
        await sleep(100);
      }
    }
    return null;
  }

  // Subscribes until it succeeds or the connection closes; an error other
  // than 114 (unavailable: try again) is a problem, reported once per code.
  async subscribe(conn, view) {
    const reported = new Set();
    while (!this.stopping && conn.open) {
      const params = view.pos ? { room: view.room, since: { ...view.pos } } : { room: view.room };
      let reply;
      try {
        reply = await conn.request('subscribe', params, (m) => m.result && view.subscribed(m.result));
      } catch (e) {
        if (e instanceof NoReply) {
          view.problem(e.message);
          conn.close();
        }
        return;
      }
      if (reply.result) return;
      const { code, message } = reply.error;
      if (code !== 114 && !reported.has(code)) {
        reported.add(code);
        view.problem(`subscribe answered error ${code} ("${message}")`);
      }
      await sleep(100);
    }
  }

  subscribedEverywhere() { return [...this.views.values()].every((v) => v.live); }

  // Subscribed in every room, and shown each room's last acknowledged
  // publication (`lastAcks`, by room), or told it would not be.
  caughtUp(lastAcks) {
    return [...this.views.values()].every((v) => {
      const last = lastAcks.get(v.room);
      return v.live && (!last || v.received(last) || v.toldOf(last));
    });
  }

  async stop() {
    this.stopping = true;
    this.conn?.close();
    await this.running;
  }
}

// -------------------------------------------------------------- checker

const span = (lo, hi) => (lo === hi ? `${lo}` : `${lo}-${hi}`);

// "e1 1-20, 31-40; e2 1-5": acknowledged positions, by epoch, as ranges.
function ranges(acks) {
  const byEpoch = new Map();
  for (const a of acks) byEpoch.set(a.epoch, [...(byEpoch.get(a.epoch) ?? []), a.offset]);
  return [...byEpoch].map(([epoch, offsets]) => {
    offsets.sort((x, y) => x - y);
    const parts = [];
    for (let i = 0; i < offsets.length;) {
      let j = i;
      while (j + 1 < offsets.length && offsets[j + 1] === offsets[j] + 1) ++j;
      parts.push(span(offsets[i], offsets[j]));
      i = j + 1;
    }
    return `${epoch} ${parts.join(', ')}`;
  }).join('; ');
}

// Problems of one view against what the publisher was told: acknowledged
// publications neither shown nor told of, and publications shown at a
// position other than the one acknowledged, or shown though refused. A
// publish refused with 114 may still have been committed (Redis went away
// before its reply reached heraldd): `shown114` collects those, which are
// not problems.
function judgeView(view, publisher, shown114) {
  const found = [...view.problems];
  const missing = publisher.acked(view.room).filter((a) => !view.received(a) && !view.toldOf(a));
  if (missing.length) {
    found.push(`${view.label}: ${missing.length} acknowledged publications neither shown nor told of: ` +
      ranges(missing));
  }
  for (const [key, n] of view.seen) {
    const o = publisher.outcome(n);
    if (o?.state === 'acked' && `${o.epoch}/${o.offset}` !== key) {
      found.push(`${view.label}: shown n=${n} at ${key}, acknowledged at ${o.epoch}/${o.offset}`);
    } else if (o?.state === 'refused' && o.code === 114) {
      shown114.add(n);
    } else if (o?.state === 'refused') {
      found.push(`${view.label}: shown n=${n} at ${key}, whose publish was refused with ${o.code}`);
    } else if (!o) {
      found.push(`${view.label}: shown ${key} with n=${n}, which was never published`);
    }
  }
  return found;
}

// Every problem of the run, and the counts of the summary line.
function judge(publisher, subscribers) {
  const problems = [];
  const positions = new Map();
  for (const a of publisher.acked()) {
    const key = `${a.room} ${a.epoch}/${a.offset}`;
    const before = positions.get(key);
    if (before) {
      problems.push(`publisher: ${key} acknowledged for n=${before.n} and again for n=${a.n}: ` +
        'an offset reused in one epoch');
    } else {
      positions.set(key, a);
    }
  }
  problems.push(...publisher.problems());
  const counts = { subscribers: { exact: 0, told: 0, failed: 0 }, views: { exact: 0, told: 0, failed: 0 },
    recovered: 0, notRecovered: 0, closes: new Map(), shown114: new Set() };
  for (const s of subscribers) {
    let verdict = 'exact';
    for (const view of s.views.values()) {
      const found = judgeView(view, publisher, counts.shown114);
      problems.push(...found.slice(0, 3));
      if (found.length > 3) problems.push(`${view.label}: ... and ${found.length - 3} more`);
      const v = found.length ? 'failed' : view.told ? 'told' : 'exact';
      counts.views[v] += 1;
      if (v === 'failed' || (v === 'told' && verdict === 'exact')) verdict = v;
      counts.recovered += view.recovered;
      counts.notRecovered += view.notRecovered;
    }
    counts.subscribers[verdict] += 1;
    for (const [code, k] of s.closes) counts.closes.set(code, (counts.closes.get(code) ?? 0) + k);
  }
  return { problems, counts };
}

function summary(label, publisher, { counts }) {
  const acked = publisher.count('acked');
  const refused = publisher.count('refused');
  const refused114 = publisher.count('refused', 114);
  const closes = [...counts.closes].map(([code, k]) => `${code}x${k}`).join(' ') || 'none';
  const { subscribers: s, views: v } = counts;
  return `${label}: subscribers ${SUBSCRIBERS}: exact ${s.exact}, told ${s.told}, failed ${s.failed} ` +
    `(room views exact ${v.exact}, told ${v.told}, failed ${v.failed}); ` +
    `publishes ${publisher.outcomes.length}: acked ${acked}, refused with 114 ${refused114}, ` +
    `other ${publisher.outcomes.length - acked - refused114} (other errors ${refused - refused114}); ` +
    `refused with 114 yet published ${counts.shown114.size}; ` +
    `resubscribes recovered ${counts.recovered}, not recovered ${counts.notRecovered}; closes ${closes}`;
}

// ------------------------------------------------------------- scenario

function roomNames(prefix) {
  const run = Math.random().toString(36).slice(2, 8);
  return Array.from({ length: ROOMS }, (_, i) => `${prefix}:${run}-${i}`);
}

// Subscribers everywhere, traffic, `breakRedis(publisher)` (which returns
// once Redis has a master again), traffic until every room is acknowledged
// again, everyone caught up; returns the judgement. Every wait is bounded:
// a bound reached is a problem of its own, and the checker still runs.
async function failover(label, nodes, rooms, breakRedis) {
  const problems = [];
  const subscribers = Array.from({ length: SUBSCRIBERS },
    (_, i) => new Subscriber(`s${i}`, nodes.map((n) => n.port), rooms, i % 2));
  const publisher = new Publisher(nodes[0].port, rooms);
  try {
    await waitFor('every subscriber in every room', () => subscribers.every((s) => s.subscribedEverywhere()));
    await publisher.open();
    publisher.start();
    await waitFor(`${TRAFFIC_BEFORE} acknowledged publications`, () => publisher.acked().length >= TRAFFIC_BEFORE);
    await breakRedis(publisher);
    const promoted = publisher.outcomes.length;
    const again = (room) => publisher.ackedAfter(promoted, room);
    if (!await until(() => rooms.every((room) => again(room) >= ACKS_AFTER), 15000)) {
      problems.push(`not every room was acknowledged ${ACKS_AFTER} times within 15 s of the promotion: ` +
        rooms.map((room) => `${room} ${again(room)}`).join(', '));
    }
    await publisher.stop();
    const lastAcks = publisher.lastAcks();
    if (!await until(() => subscribers.every((s) => s.caughtUp(lastAcks)), 15000)) {
      problems.push('not every subscriber was shown (or told of) the last acknowledged publication ' +
        'of every room within 15 s');
    }
  } finally {
    await publisher.stop();
    await Promise.all(subscribers.map((s) => s.stop()));
  }
  const verdict = judge(publisher, subscribers);
  console.log(summary(label, publisher, verdict));
  return [...problems, ...verdict.problems];
}

function assertNoProblems(problems) {
  const shown = problems.slice(0, 40).join('\n');
  assert.equal(problems.length, 0, `${problems.length} problems:\n${shown}${problems.length > 40 ? '\n...' : ''}`);
}

// ------------------------------------------------------------------ tests

const sentinelMaster = async (sentinel) => {
  const addr = await tryAsk(sentinel, 'sentinel', 'get-master-addr-by-name', 'herald');
  return addr && Number(addr.split('\n')[1]);
};

test('Sentinel failover losing acked publications: each subscriber gets them once, in order, or is told', async () => {
  assert.ok(HERALDD, 'set HERALDD to the heraldd binary');
  const lab = new Lab('sentinel');
  try {
    const master = await lab.plainRedis();
    const replica = await lab.plainRedis(['--replicaof', '127.0.0.1', String(master.port)]);
    await waitFor('the replica in sync', () => says(replica.port, 'master_link_status:up', 'info', 'replication'));
    const sentinel = await lab.sentinel(master.port);
    await waitFor('Sentinel knowing the master and its replica', async () =>
      await sentinelMaster(sentinel.port) === master.port &&
      await says(sentinel.port, String(replica.port), 'sentinel', 'replicas', 'herald'));
    const flags = [...HERALDD_FLAGS, '--cluster.redis.topology', 'sentinel',
      '--cluster.redis.sentinels', `127.0.0.1:${sentinel.port}`, '--cluster.redis.master_name', 'herald'];
    const nodes = [await lab.heraldd(flags), await lab.heraldd(flags)];
    const problems = await failover('sentinel', nodes, roomNames('sentinel'), async (publisher) => {
      // From here on acknowledged publications exist only on the master.
      assert.equal(await ask(replica.port, 'replicaof', '127.0.0.1', String(await freePort())), 'OK');
      const cut = publisher.acked().length;
      await waitFor('100 acknowledgements after the cut', () => publisher.acked().length >= cut + 100);
      await lab.kill(master);
      await waitFor('Sentinel promoting the replica', async () =>
        await sentinelMaster(sentinel.port) === replica.port && await role(replica.port) === 'master', 30000);
    });
    assertNoProblems(problems);
  } finally {
    await lab.close();
  }
});

// `cluster nodes` as {id, port, master (id or '-'), flags, slots: [[lo, hi]]}.
async function clusterNodes(port) {
  return (await ask(port, 'cluster', 'nodes')).split('\n').map((line) => {
    const [id, addr, flags, master, , , , , ...slots] = line.split(' ');
    return {
      id, port: Number(addr.split('@')[0].split(':').at(-1)), master, flags: flags.split(','),
      slots: slots.filter((s) => !s.startsWith('[')).map((s) => s.split('-').map(Number)),
    };
  });
}

async function slotMaster(port, room) {
  const slot = Number(await ask(port, 'cluster', 'keyslot', `herald:{${room}}:m`));
  return (await clusterNodes(port)).find((n) => n.flags.includes('master') &&
    n.slots.some(([lo, hi = lo]) => slot >= lo && slot <= hi));
}

const clusterOk = (port) => says(port, 'cluster_state:ok', 'cluster', 'info');
const allOf = async (items, fn) => (await Promise.all(items.map(fn))).every(Boolean);

test('Redis Cluster failover of a room master: each subscriber gets every acked publication, or is told', async () => {
  assert.ok(HERALDD, 'set HERALDD to the heraldd binary');
  const lab = new Lab('cluster');
  try {
    const redis = [];
    for (let i = 0; i < 6; ++i) redis.push(await lab.clusterRedis());
    await redisCli(['--cluster', 'create', ...redis.map((r) => `127.0.0.1:${r.port}`),
      '--cluster-replicas', '1', '--cluster-yes'], 60000);
    await waitFor('cluster_state:ok on every node', () => allOf(redis, (r) => clusterOk(r.port)), 30000);
    // Three replicas known to the seed, each synced (one that never synced
    // is not promoted).
    await waitFor('every replica in sync', async () => {
      const replicas = (await clusterNodes(redis[0].port)).filter((n) => n.flags.includes('slave'));
      return replicas.length === 3 &&
        allOf(replicas, (r) => says(r.port, 'master_link_status:up', 'info', 'replication'));
    }, 30000);
    // The first room's master is killed; heraldd's seed address survives.
    const seed = redis[0].port;
    let rooms;
    let victim;
    await waitFor('a first room whose master is not the seed', async () => {
      rooms = roomNames('cluster');
      victim = await slotMaster(seed, rooms[0]);
      return victim.port !== seed;
    });
    const heir = (await clusterNodes(seed)).find((n) => n.master === victim.id);
    assert.ok(heir, `no replica of ${victim.port}`);
    const flags = [...HERALDD_FLAGS, '--cluster.redis.topology', 'cluster',
      '--cluster.redis.address', `127.0.0.1:${seed}`];
    const nodes = [await lab.heraldd(flags), await lab.heraldd(flags)];
    const problems = await failover('cluster', nodes, rooms, async () => {
      await lab.kill(redis.find((r) => r.port === victim.port));
      const survivors = redis.filter((r) => r.port !== victim.port);
      await waitFor('the replica promoted, cluster_state:ok on the survivors', async () =>
        await role(heir.port) === 'master' && allOf(survivors, (r) => clusterOk(r.port)), 30000);
    });
    assertNoProblems(problems);
  } finally {
    await lab.close();
  }
});
