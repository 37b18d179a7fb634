// Centrifugo's server API, spoken by cent.js (npm `cent.js`, a client of
// Centrifugo's HTTP API, unchanged) to heraldd's /api/<method>
// (docs/centrifugo.md#server-api): publish and broadcast reach an SDK
// subscriber; history, history_remove, presence, presence_stats, info and
// channels answer in Centrifugo's shapes; subscribe adds a server-side subscription, unsubscribe ends one
// and disconnect a user's connections; errors come back with
// Centrifugo's numbers; batch and cent.js's pipeline run in order; and
// Herald's own API keeps its shape at the same paths. Run by ctest:
// node --test tests/node/cent_api.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CentClient, CentException } from 'cent.js';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { SECRET, sdk, next, connected, subscribed } from './centrifuge_helpers.mjs';

const API_KEY = 'cent-js-api-key';
const FLAGS = ['--auth.hmac_secret', SECRET, '--api.key', API_KEY,
  '--rooms.presence', 'true'];

function cent(port, apiKey = API_KEY) {
  return new CentClient({ url: `http://127.0.0.1:${port}/api`, apiKey });
}

// cent.js throws a CentException for a refused call (built from the error
// object, whose code it does not keep: the codes are read from the raw
// answer below).
async function refused(call) {
  await assert.rejects(call, (e) => e instanceof CentException);
}

// A raw POST with the API key, for what cent.js has no method for.
async function post(port, path, body, headers = {}) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': API_KEY, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, text: await r.text() };
}

test('cent.js publishes and broadcasts to SDK subscribers and reads history and presence', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const alice = sdk(port, 'alice');
  try {
    const api = cent(port);
    await connected(alice);
    const news = alice.newSubscription('news');
    const sport = alice.newSubscription('sport');
    await subscribed(news);
    await subscribed(sport);

    const got = next(news, 'publication');
    const published = await api.publish({ channel: 'news', data: { text: 'hello' } });
    assert.equal(published.offset, 1);
    assert.match(published.epoch, /.+/);
    assert.deepEqual((await got).data, { text: 'hello' });
    // A retried publish with its idempotency_key: the first one's position,
    // and nothing published again.
    const keyed = await api.publish({ channel: 'keyed', data: 'once', idempotency_key: 'k-1' });
    assert.deepEqual(await api.publish({ channel: 'keyed', data: 'once', idempotency_key: 'k-1' }), keyed);
    assert.equal((await api.getHistory({ channel: 'keyed', limit: -1 })).publications.length, 1);

    const both = [next(news, 'publication'), next(sport, 'publication')];
    const broadcast = await api.broadcast({ channels: ['news', 'sport'], data: { n: 2 } });
    assert.deepEqual(broadcast.responses.map((r) => r.result.offset), [2, 1]);
    for (const ctx of await Promise.all(both)) assert.deepEqual(ctx.data, { n: 2 });

    // Centrifugo's limit: -1 every publication, 0 (or none) the position only.
    const all = await api.getHistory({ channel: 'news', limit: -1 });
    assert.deepEqual(all.publications.map((p) => p.data), [{ text: 'hello' }, { n: 2 }]);
    assert.deepEqual(all.publications.map((p) => p.offset), [1, 2]);
    assert.equal(all.epoch, published.epoch);
    assert.equal(all.offset, 2);
    const top = await api.getHistory({ channel: 'news' });
    assert.deepEqual([top.publications, top.offset], [[], 2]);
    const newest = await api.getHistory({ channel: 'news', limit: 1, reverse: true });
    assert.deepEqual(newest.publications.map((p) => p.offset), [2]);
    const after = await api.getHistory({ channel: 'news', limit: 10, since: { offset: 1, epoch: all.epoch } });
    assert.deepEqual(after.publications.map((p) => p.offset), [2]);
    // history_remove: the publications go, the stream's position stays.
    assert.deepEqual(await api.removeHistory({ channel: 'news' }), {});
    const removed = await api.getHistory({ channel: 'news', limit: -1 });
    assert.deepEqual([removed.publications, removed.epoch, removed.offset], [[], all.epoch, 2]);

    const presence = await api.getPresence({ channel: 'news' });
    const entries = Object.entries(presence.presence);
    assert.equal(entries.length, 1);
    const [clientId, info] = entries[0];
    assert.equal(info.client, clientId);
    assert.equal(info.user, 'alice');
    assert.deepEqual(await api.getPresenceStats({ channel: 'news' }), { num_clients: 1, num_users: 1 });
    // info: the one node, with alice's connection and her two channels.
    const { nodes } = await api.getInfo();
    assert.equal(nodes.length, 1);
    assert.deepEqual([nodes[0].num_clients, nodes[0].num_users, nodes[0].num_channels, nodes[0].num_subs],
      [1, 1, 2, 2]);
    assert.match(nodes[0].uid, /^node-/);
    // channels: alice's two, one subscriber each; a glob narrows them.
    assert.deepEqual(await api.getChannels({ pattern: '' }),
      { channels: { news: { num_clients: 1 }, sport: { num_clients: 1 } } });
    assert.deepEqual(await api.getChannels({ pattern: 'sp*' }), { channels: { sport: { num_clients: 1 } } });

    // Unsubscribe: alice's subscription to sport ends with the server's
    // code (2000), which her SDK does not retry; news goes on.
    const ended = next(sport, 'unsubscribed');
    assert.deepEqual(await api.unsubscribe({ channel: 'sport', user: 'alice' }), {});
    assert.equal((await ended).code, 2000);
    assert.equal(sport.state, 'unsubscribed');
    const still = next(news, 'publication');
    await api.publish({ channel: 'news', data: 'still' });
    assert.equal((await still).data, 'still');
    // Tags go with a publication: to the SDK's handler, and into the
    // history the SDK reads.
    const tagged = next(news, 'publication');
    await api.publish({ channel: 'news', data: 'tagged', tags: { kind: 'alert', level: '2' } });
    assert.deepEqual((await tagged).tags, { kind: 'alert', level: '2' });
    const fromSdk = await news.history({ limit: 1, reverse: true });
    assert.deepEqual([fromSdk.publications[0].data, fromSdk.publications[0].tags],
      ['tagged', { kind: 'alert', level: '2' }]);
    assert.deepEqual((await api.getPresenceStats({ channel: 'sport' })).num_clients, 0);

    // Subscribe: alice's connection gets a server-side subscription (the
    // SDK's client-level 'subscribed', with the call's data), and its
    // publications; the call's info is her chan_info in the channel.
    const made = next(alice, 'subscribed', (ctx) => ctx.channel === 'alerts');
    assert.deepEqual(await api.subscribe({
      channel: 'alerts', user: 'alice', info: { role: 'on-call' }, data: { why: 'paged' },
    }), {});
    assert.deepEqual((await made).data, { why: 'paged' });
    const [onCall] = Object.values((await api.getPresence({ channel: 'alerts' })).presence);
    assert.deepEqual([onCall.user, onCall.chan_info], ['alice', { role: 'on-call' }]);
    const alert = next(alice, 'publication', (ctx) => ctx.channel === 'alerts');
    await api.publish({ channel: 'alerts', data: 'fire' });
    assert.equal((await alert).data, 'fire');
    // Subscribing again changes nothing; unsubscribing ends it.
    assert.deepEqual(await api.subscribe({ channel: 'alerts', user: 'alice' }), {});
    const left = next(alice, 'unsubscribed', (ctx) => ctx.channel === 'alerts');
    await api.unsubscribe({ channel: 'alerts', user: 'alice' });
    await left;
    assert.equal((await api.getPresenceStats({ channel: 'alerts' })).num_clients, 0);

    // Disconnect: alice's connection is closed by the server, which her SDK
    // sees as a disconnect it does not retry (3503 force disconnect).
    const gone = next(alice, 'disconnected');
    await api.disconnect({ user: 'alice' });
    assert.equal((await gone).code, 3503);
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
  }
});

test('refusals come back with Centrifugo\'s codes, and a wrong key is refused', async () => {
  const conf = join(mkdtempSync(join(tmpdir(), 'cent-api-')), 'quiet.toml');
  writeFileSync(conf, '[namespaces.quiet]\nhistory_size = 0\npresence = false\n');
  const { proc, port } = await startHeraldd(undefined, [...FLAGS, '--config', conf]);
  try {
    const api = cent(port);
    // Centrifugo's default error mode: HTTP 200, the error in the body, and
    // cent.js throws. 107 bad request (a malformed channel, data missing, a
    // limit below -1); 108 not available (history or presence off).
    const cases = [
      ['publish', { channel: 'bad room', data: 1 }, 107],
      ['publish', { channel: 'news' }, 107],
      ['history', { channel: 'news', limit: -2 }, 107],
      ['history', { channel: 'quiet:x' }, 108],
      ['presence', { channel: 'quiet:x' }, 108],
    ];
    for (const [method, body, code] of cases) {
      const raw = await post(port, `/api/${method}`, body);
      assert.equal(raw.status, 200, raw.text);
      assert.equal(JSON.parse(raw.text).error.code, code, raw.text);
    }
    // Centrifugo's transport error mode: the error alone, under its status.
    const transport = { 'X-Centrifugo-Error-Mode': 'transport' };
    for (const [method, body, code, status] of [
      ['publish', { channel: 'bad room', data: 1 }, 107, 400],
      ['history', { channel: 'quiet:x' }, 108, 400],
    ]) {
      const raw = await post(port, `/api/${method}`, body, transport);
      assert.equal(raw.status, status, raw.text);
      assert.equal(JSON.parse(raw.text).code, code, raw.text);
    }
    const ok = await post(port, '/api/publish', { channel: 'news', data: 0 }, transport);
    assert.equal(JSON.parse(ok.text).result.offset, 1);
    await refused(api.publish({ channel: 'bad room', data: 1 }));
    await refused(api.getHistory({ channel: 'quiet:x' }));
    await refused(cent(port, 'not-the-key').publish({ channel: 'news', data: 1 }));
    // The API still serves after every refusal.
    assert.equal((await api.publish({ channel: 'news', data: 1 })).offset, 2);
  } finally {
    await stopHeraldd(proc);
  }
});

test('batch and cent.js\'s pipeline run their commands in order', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  try {
    const batch = await post(port, '/api/batch', {
      commands: [
        { publish: { channel: 'log', data: 'a' } },
        { publish: { channel: 'bad room', data: 'b' } },
        { history: { channel: 'log', limit: -1 } },
        { nonesuch: {} },
      ],
    });
    assert.equal(batch.status, 200);
    const { replies } = JSON.parse(batch.text);
    assert.equal(replies.length, 4);
    assert.equal(replies[0].publish.offset, 1);
    assert.equal(replies[1].error.code, 107);
    assert.deepEqual(replies[2].history.publications.map((p) => p.data), ['a']);
    assert.equal(replies[3].error.code, 104);

    const results = await cent(port).pipeline([
      { method: 'publish', params: { channel: 'log', data: 'c' } },
      { method: 'publish', params: { channel: 'log', data: 'd' } },
      { method: 'history', params: { channel: 'log', limit: -1 } },
    ]);
    assert.deepEqual(results[0], { offset: 2, epoch: replies[0].publish.epoch });
    assert.equal(results[1].offset, 3);
    assert.deepEqual(results[2].publications.map((p) => p.data), ['a', 'c', 'd']);
  } finally {
    await stopHeraldd(proc);
  }
});

test('Herald\'s own API keeps its shape at the same paths', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  try {
    const ok = await post(port, '/api/publish', { room: 'news', data: 1 });
    assert.equal(JSON.parse(ok.text).result.offset, 1);
    const bad = await post(port, '/api/publish', { room: 'bad room', data: 1 });
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).error.code, 'bad_request');
    const history = await post(port, '/api/history', { room: 'news' });
    assert.deepEqual(JSON.parse(history.text).result.publications.map((p) => p.data), [1]);
  } finally {
    await stopHeraldd(proc);
  }
});

test('subscribe recovers from recover_since, carries b64data, and ends at expire_at', async () => {
  const { proc, port } = await startHeraldd(undefined, [...FLAGS, '--client.refresh_grace', '0s']);
  const alice = sdk(port, 'alice');
  try {
    const api = cent(port);
    await connected(alice);
    const first = await api.publish({ channel: 'replay', data: 1 });
    await api.publish({ channel: 'replay', data: 2 });
    await api.publish({ channel: 'replay', data: 3 });
    // Subscribed from offset 1: the subscribe push (the SDK's client-level
    // 'subscribed', with the b64data decoded), then 2 and 3 from the
    // history, then what is published live.
    const seen = [];
    alice.on('publication', (ctx) => { if (ctx.channel === 'replay') seen.push(ctx.data); });
    const made = next(alice, 'subscribed', (ctx) => ctx.channel === 'replay');
    assert.deepEqual(await api.subscribe({
      channel: 'replay', user: 'alice', recover_since: { offset: 1, epoch: first.epoch },
      b64data: Buffer.from('{"why":"replay"}').toString('base64'),
    }), {});
    const ctx = await made;
    assert.deepEqual([ctx.data, ctx.streamPosition.offset], [{ why: 'replay' }, 3]);
    const live = next(alice, 'publication', (c) => c.channel === 'replay' && c.data === 4);
    await api.publish({ channel: 'replay', data: 4 });
    await live;
    assert.deepEqual(seen, [2, 3, 4]);

    // An end two seconds away: the connection is closed then with 3006,
    // Centrifugo's "subscription expired", which the SDK reconnects from.
    const asked = Date.now();
    const gone = next(alice, 'connecting', (c) => c.code === 3006, 8000);
    assert.deepEqual(await api.subscribe({
      channel: 'timed', user: 'alice', expire_at: Math.floor(Date.now() / 1000) + 2,
    }), {});
    await gone;
    assert.ok(Date.now() - asked >= 900, 'ended before its end');
    await next(alice, 'connected');

    // Refused with what is wrong.
    for (const [body, field] of [
      [{ channel: 'x', user: 'alice', recover_since: { offset: 1 } }, 'recover_since'],
      [{ channel: 'x', user: 'alice', expire_at: 'soon' }, 'expire_at'],
      [{ channel: 'x', user: 'alice', b64info: '%%%' }, 'b64info'],
      [{ channel: 'x', user: 'alice', info: [1] }, 'info'],
    ]) {
      const r = await post(port, '/api/subscribe', body);
      assert.equal(JSON.parse(r.text).error.code, 107, r.text);
      assert.match(JSON.parse(r.text).error.message, new RegExp(field), r.text);
    }
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
  }
});

test('refresh moves a user\'s connections\' end, or ends them', async () => {
  const { proc, port } = await startHeraldd(undefined, [...FLAGS, '--client.refresh_grace', '0s']);
  const alice = sdk(port, 'alice');
  try {
    const api = cent(port);
    await connected(alice);
    // expired: closed now as expired (3005), which the SDK reconnects from.
    let gone = next(alice, 'connecting', (ctx) => ctx.code === 3005);
    assert.deepEqual(await api.refresh({ user: 'alice', expired: true }), {});
    await gone;
    await next(alice, 'connected');
    // A new end a second away: the connection lasts until then, no longer.
    const asked = Date.now();
    gone = next(alice, 'connecting', (ctx) => ctx.code === 3005, 6000);
    await api.refresh({ user: 'alice', expire_at: Math.floor(Date.now() / 1000) + 2 });
    await gone;
    assert.ok(Date.now() - asked >= 900, 'ended before its new end');
    await next(alice, 'connected');
    // expire_at 0: never (the server's end is lifted).
    assert.deepEqual(await api.refresh({ user: 'alice', expire_at: 0 }), {});
    // info: her conn_info from now on, in presence (chan_info kept) and on
    // what she publishes.
    const lobby = alice.newSubscription('lobby');
    await subscribed(lobby);
    assert.deepEqual(await api.subscribe({ channel: 'desk', user: 'alice', info: { role: 'agent' } }), {});
    await api.refresh({ user: 'alice', info: { name: 'Alicia' } });
    const who = async (channel) => Object.values((await api.getPresence({ channel })).presence)[0];
    let desk;
    const deadline = Date.now() + 5000;
    do {
      desk = await who('desk');
    } while (!desk?.conn_info && Date.now() < deadline);
    assert.deepEqual([desk.conn_info, desk.chan_info], [{ name: 'Alicia' }, { role: 'agent' }]);
    assert.deepEqual((await who('lobby')).conn_info, { name: 'Alicia' });
    const mine = next(lobby, 'publication');
    await lobby.publish('hello');
    assert.deepEqual((await mine).info.connInfo, { name: 'Alicia' });
    const bad = await post(port, '/api/refresh', { user: 'alice', b64info: '%%%' });
    assert.match(JSON.parse(bad.text).error.message, /b64info/);
    const raw = await post(port, '/api/refresh', { user: 'alice', expire_at: 'soon' });
    assert.equal(JSON.parse(raw.text).error.code, 'bad_request');
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
  }
});

test('disconnect takes Centrifugo\'s custom code and whitelist', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const kept = sdk(port, 'carol');
  const other = sdk(port, 'carol');
  try {
    const api = cent(port);
    const keptId = (await connected(kept)).client;
    await connected(other);
    // An application's code (4500-4999: the SDK does not reconnect) and
    // reason; the whitelisted connection stays.
    const gone = next(other, 'disconnected');
    const r = await api.disconnect({
      user: 'carol', whitelist: [keptId], disconnect: { code: 4501, reason: 'moved' },
    });
    assert.equal(r.disconnected, 1);
    const d = await gone;
    assert.deepEqual([d.code, d.reason], [4501, 'moved']);
    assert.equal(kept.state, 'connected');
    // A code outside 4000-4999 is refused (107), and nobody is cut.
    const raw = await post(port, '/api/disconnect', { user: 'carol', channel: 'x', disconnect: { code: 3000 } });
    assert.equal(JSON.parse(raw.text).error.code, 107, raw.text);
    assert.equal(kept.state, 'connected');
  } finally {
    kept.disconnect();
    other.disconnect();
    await stopHeraldd(proc);
  }
});

test('batch, /api lines and disconnect refuse what they cannot read, and the API goes on', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  try {
    const error = async (path, body) => {
      const raw = await post(port, path, body);
      assert.equal(raw.status, 200, raw.text);
      return JSON.parse(raw.text).error;
    };
    let e = await error('/api/batch', { commands: { publish: {} } });
    assert.deepEqual([e.code, e.message], [107, 'commands: expected an array of commands']);
    e = await error('/api/batch', { commands: [{ publish: { channel: 'a', data: 1 }, history: {} }] });
    assert.equal(e.code, 107);
    assert.match(e.message, /^commands\[0\]: expected one method/);
    e = await error('/api', '{"method":"publish","params":{"channel":"a","data":1}}\n \nnot json');
    assert.equal(e.code, 107);
    assert.match(e.message, /^line 2: expected/);
    e = await error('/api/disconnect', { channel: 'x', user: 'u', whitelist: 'c1' });
    assert.deepEqual([e.code, e.message], [107, 'whitelist: expected an array of client ids']);
    // Nothing of a refused batch or /api body ran; "parallel" still runs
    // the commands in order.
    const ok = await post(port, '/api/batch', {
      parallel: true,
      commands: [{ publish: { channel: 'a', data: 1 } }, { publish: { channel: 'a', data: 2 } }],
    });
    assert.deepEqual(JSON.parse(ok.text).replies.map((r) => r.publish.offset), [1, 2]);
  } finally {
    await stopHeraldd(proc);
  }
});
