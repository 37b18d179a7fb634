// Centrifugo's SDK (npm `centrifuge`, unchanged) against a heraldd node of
// a Redis cluster whose room streams the test breaks on purpose: a
// publication lost from the channel and from the history (Redis's `top`
// moved past it, its history deleted), which the node cannot fill and so
// resets the room (docs/cluster.md). What the SDK must see is Centrifugo's
// answer to a lost stream:
//  - a client-side subscription: an unsubscribe push with 2500, which the
//    SDK answers by going back to subscribing and subscribing again from
//    its position, told `recovered: false`; the connection and its other
//    subscriptions go on;
//  - a server-side subscription (the token's `channels`): the connection
//    closed with 3010 (insufficient state), from which the SDK reconnects.
// Run by ctest (node_centrifuge_cluster): node --test tests/node/centrifuge_cluster.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { spawnTied } from '../support/tied_child.mjs';
import { SECRET, token, sdk, next, connected, subscribed } from './centrifuge_helpers.mjs';

const API_KEY = 'cluster-sdk-api-key';

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

function redisCli(port, ...args) {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args],
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message} ${stderr}`)) : resolve(stdout.trim())));
  });
}

async function startRedis() {
  const port = await freePort();
  const proc = spawnTied('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1',
    '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 20000);
    proc.stdout.on('data', (d) => {
      out += d;
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { proc, port };
}

// The API's publish, in Centrifugo's shape.
async function publish(port, channel, data) {
  const r = await fetch(`http://127.0.0.1:${port}/api/publish`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': API_KEY },
    body: JSON.stringify({ channel, data }),
  });
  const body = await r.json();
  assert.ok(body.result, JSON.stringify(body));
  return body.result;
}

// Loses the room's next publication for good: Redis's top moves past it
// and the history that could fill the gap goes.
async function loseNext(redisPort, room) {
  await redisCli(redisPort, 'HINCRBY', `herald:{${room}}:m`, 'top', '1');
  await redisCli(redisPort, 'DEL', `herald:{${room}}:h`);
}

test('a lost stream reaches the SDK per channel (2500), or as 3010 for a server-side one', async () => {
  const redis = await startRedis();
  const { proc, port } = await startHeraldd(undefined, ['--cluster.mode', 'redis',
    '--cluster.redis.address', `127.0.0.1:${redis.port}`, '--auth.hmac_secret', SECRET,
    '--api.key', API_KEY]);
  const alice = sdk(port, 'alice', { token: token('alice', 3600, { channels: ['feed:s'] }) });
  try {
    const served = next(alice, 'subscribed', (ctx) => ctx.channel === 'feed:s');
    await connected(alice);
    await served;
    const lossy = alice.newSubscription('chat:lossy');
    const calm = alice.newSubscription('chat:calm');
    await subscribed(lossy);
    await subscribed(calm);
    let got = next(lossy, 'publication');
    await publish(port, 'chat:lossy', 1);
    assert.equal((await got).data, 1);

    // Client-side: the unsubscribe push's 2500 puts the subscription back
    // to subscribing (the SDK's own resubscribe), then subscribed again,
    // not recovered.
    const dropped = next(lossy, 'subscribing', (ctx) => ctx.code !== 0);
    const back = next(lossy, 'subscribed', () => true, 10000);
    const reconnects = [];
    alice.on('connecting', (ctx) => reconnects.push(ctx.code));
    await loseNext(redis.port, 'chat:lossy');
    await publish(port, 'chat:lossy', 3);
    const u = await dropped;
    assert.equal(u.code, 2500, JSON.stringify(u));
    const s = await back;
    assert.deepEqual([s.wasRecovering, s.recovered], [true, false], JSON.stringify(s));
    // The stream goes on for it, and the other channel never noticed.
    got = next(lossy, 'publication');
    await publish(port, 'chat:lossy', 4);
    assert.equal((await got).data, 4);
    got = next(calm, 'publication');
    await publish(port, 'chat:calm', 'still');
    assert.equal((await got).data, 'still');
    assert.deepEqual(reconnects, [], 'the connection was kept');

    // Server-side: the connection closes with 3010 and the SDK reconnects.
    got = next(alice, 'publication', (ctx) => ctx.channel === 'feed:s');
    await publish(port, 'feed:s', 1);
    await got;
    const closing = next(alice, 'connecting', () => true, 10000);
    const again = next(alice, 'connected', () => true, 10000);
    await loseNext(redis.port, 'feed:s');
    await publish(port, 'feed:s', 3);
    const c = await closing;
    assert.deepEqual([c.code, c.reason], [3010, 'insufficient state']);
    await again;
    got = next(alice, 'publication', (ctx) => ctx.channel === 'feed:s');
    await publish(port, 'feed:s', 'after');
    assert.equal((await got).data, 'after');
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
    redis.proc.kill('SIGTERM');
  }
});
