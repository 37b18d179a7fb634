// Centrifugo's own JavaScript SDK (npm `centrifuge`, unchanged, with `ws`
// as its WebSocket) against heraldd's /connection/websocket
// (docs/centrifugo.md): connect with a token, subscribe, publish, history,
// presence, an abrupt drop recovered exactly, unsubscribe and subscribe
// again, one room shared with a client of Herald's own protocol, bad
// input that closes only its own connection, token refresh, server-side
// subscriptions, private channels with subscription tokens (sub_refresh,
// expiry), user-limited channels, ES256 tokens, and the shutdown (3001) and
// slow-consumer (3008) closes the SDK reconnects from. Run by ctest:
// node --test tests/node/centrifuge_sdk.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Centrifuge } from 'centrifuge';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { Client as HeraldClient } from './ws_client.mjs';
import { SECRET, token, sdk, next, until, connected, subscribed, rawSocket } from './centrifuge_helpers.mjs';

const FLAGS = ['--auth.dev_mode', 'on', '--auth.hmac_secret', SECRET,
  '--rooms.presence', 'true', '--rooms.join_leave', 'true'];

test('the SDK connects, subscribes, publishes and reads history and presence', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const alice = sdk(port, 'alice');
  const bob = sdk(port, 'bob');
  try {
    const ctx = await connected(alice);
    assert.match(ctx.client, /.+/);
    await connected(bob);
    const a = alice.newSubscription('chat:lobby');
    const b = bob.newSubscription('chat:lobby', { joinLeave: true });
    const sa = await subscribed(a);
    assert.equal(sa.recoverable, true);
    assert.equal(sa.positioned, true);
    await subscribed(b);

    const got = next(b, 'publication');
    await a.publish({ text: 'hi bob' });
    const pub = await got;
    assert.deepEqual(pub.data, { text: 'hi bob' });
    assert.equal(pub.info.user, 'alice');
    assert.equal(pub.info.client, ctx.client);
    assert.equal(pub.offset, 1);

    const history = await b.history({ limit: 10 });
    assert.equal(history.publications.length, 1);
    assert.deepEqual(history.publications[0].data, { text: 'hi bob' });
    assert.equal(history.offset, 1);
    assert.match(history.epoch, /.+/);
    const none = await b.history({});  // no limit: the position only (Centrifugo's rule)
    assert.equal(none.publications.length, 0);
    assert.equal(none.offset, 1);
    // since with an offset alone (the SDK leaves an unknown epoch out): read
    // in the current epoch; a wrong epoch is refused.
    await a.publish({ text: 'second' });
    const after = await b.history({ limit: 10, since: { offset: 1, epoch: '' } });
    assert.deepEqual(after.publications.map((p) => p.data.text), ['second']);
    await assert.rejects(b.history({ limit: 10, since: { offset: 1, epoch: 'nope' } }),
      (e) => e.code === 107);

    const presence = await a.presence();
    const users = Object.values(presence.clients).map((c) => c.user).sort();
    assert.deepEqual(users, ['alice', 'bob']);
    assert.equal(presence.clients[ctx.client].client, ctx.client);
    assert.deepEqual(await a.presenceStats(), { numClients: 2, numUsers: 2 });

    // Join and leave reach the subscription that asked for them, and not
    // alice's, which did not (Centrifugo's join_leave: a publication made
    // after them reaches her with none before it).
    const aliceHeard = [];
    a.on('join', (j) => aliceHeard.push(`join ${j.info.user}`));
    a.on('leave', (l) => aliceHeard.push(`leave ${l.info.user}`));
    const carol = sdk(port, 'carol');
    await connected(carol);
    const joined = next(b, 'join', (j) => j.info.user === 'carol');
    const c = carol.newSubscription('chat:lobby');
    await subscribed(c);
    assert.equal((await joined).info.user, 'carol');
    const left = next(b, 'leave', (l) => l.info.user === 'carol');
    c.unsubscribe();
    assert.equal((await left).info.user, 'carol');
    const last = next(a, 'publication', (p) => p.data.text === 'after carol');
    await b.publish({ text: 'after carol' });
    await last;
    assert.deepEqual(aliceHeard, []);
    carol.disconnect();
  } finally {
    alice.disconnect();
    bob.disconnect();
    await stopHeraldd(proc);
  }
});

test('an abrupt drop is recovered exactly by the SDK\'s own reconnect', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const alice = sdk(port, 'alice');
  const bob = sdk(port, 'bob');
  try {
    await connected(alice);
    await connected(bob);
    const a = alice.newSubscription('room');
    const b = bob.newSubscription('room');
    await subscribed(a);
    await subscribed(b);
    const seen = [];
    b.on('publication', (p) => seen.push(p.data.n));
    await a.publish({ n: 1 });
    await until(() => seen.length >= 1);

    // Cut bob's socket: no close frame, as a network drop.
    const lost = next(bob, 'connecting');
    bob._transport._transport.terminate();
    await lost;
    await a.publish({ n: 2 });
    await a.publish({ n: 3 });
    const again = await next(b, 'subscribed', () => true, 10000);
    assert.equal(again.wasRecovering, true);
    assert.equal(again.recovered, true);
    await until(() => seen.length >= 3);
    assert.deepEqual(seen, [1, 2, 3]);  // each once, in order

    // Unsubscribe, twice (the second finds nothing: still a success, no
    // reconnect), and subscribe again.
    const state = [];
    bob.on('connecting', () => state.push('connecting'));
    b.unsubscribe();
    const raw = bob.newSubscription('other');
    raw.unsubscribe();
    await subscribed(b);
    await a.publish({ n: 4 });
    await until(() => seen.length >= 4);
    assert.deepEqual(seen, [1, 2, 3, 4]);
    assert.deepEqual(state, [], 'the client reconnected');
  } finally {
    alice.disconnect();
    bob.disconnect();
    await stopHeraldd(proc);
  }
});

test('a Herald client and a Centrifugo client share a room', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const alice = sdk(port, 'alice');
  const bob = new HeraldClient(`ws://127.0.0.1:${port}/ws`);
  const bobOpen = bob.open();  // before anything else is awaited: 'open' may come first
  try {
    await connected(alice);
    const a = alice.newSubscription('shared');
    await subscribed(a);
    await bobOpen;
    bob.send({ id: 1, connect: { token: token('bob') } });
    assert.equal((await bob.reply(1)).result.user, 'bob');
    bob.send({ id: 2, subscribe: { room: 'shared' } });
    await bob.reply(2);

    const fromBob = next(a, 'publication');
    bob.send({ id: 3, publish: { room: 'shared', data: { from: 'bob' } } });
    const p = await fromBob;
    assert.deepEqual(p.data, { from: 'bob' });
    assert.equal(p.info.user, 'bob');
    await a.publish({ from: 'alice' });
    for (;;) {
      const m = await bob.next();
      if (m.pub && m.pub.info.user === 'alice') {
        assert.deepEqual(m.pub.data, { from: 'alice' });
        assert.equal(m.pub.offset, 2);
        break;
      }
    }
  } finally {
    alice.disconnect();
    bob.ws.close();
    await stopHeraldd(proc);
  }
});

test('bad input closes its own connection with Centrifugo\'s code and no other', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const alice = sdk(port, 'alice');
  try {
    await connected(alice);
    const a = alice.newSubscription('calm');
    await subscribed(a);
    const url = `ws://127.0.0.1:${port}/connection/websocket`;
    for (const bad of ['{"id":1,', '{"subscribe":{"channel":"x"}}']) {
      const ws = new WebSocket(url);
      await new Promise((r) => ws.once('open', r));
      const closed = new Promise((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
      ws.send(bad);
      const c = await closed;
      assert.equal(c.code, 3501, bad);
      assert.equal(c.reason, 'bad request');
    }
    // An unknown method with an id is an error reply; the connection lives.
    const ws = new WebSocket(url);
    await new Promise((r) => ws.once('open', r));
    const replies = [];
    ws.on('message', (d) => replies.push(...d.toString().trim().split('\n').map((l) => JSON.parse(l))));
    ws.send(`{"id":1,"connect":{"token":"${token('eve')}"}}\n{"id":2,"bogus":{}}`);
    await until(() => replies.length >= 2);
    assert.equal(replies[1].id, 2);
    assert.equal(replies[1].error.code, 104);
    // A token whose signature does not verify: refused, not retried.
    const mallory = new Centrifuge(url, { websocket: WebSocket, token: token('x').slice(0, -2) + 'AA' });
    const gone = next(mallory, 'disconnected');
    mallory.connect();
    const d = await gone;
    // Herald refuses the connect (101, not temporary: the SDK stops) where
    // Centrifugo closes with 3500; both end the client without a retry.
    assert.equal(d.code, 101);
    assert.equal(d.reason, 'token signature does not verify');
    ws.close();
    // The neighbour never noticed.
    const got = next(a, 'publication');
    await a.publish({ still: 'here' });
    assert.deepEqual((await got).data, { still: 'here' });
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
  }
});

test('pings keep an idle SDK client connected, and a client that never answers is closed', async () => {
  // A keep-alive period of 1 s (half of client.idle_timeout), announced in
  // the connect reply; the SDK gives the server 1 s beyond it.
  const { proc, port } = await startHeraldd(undefined, [...FLAGS, '--client.idle_timeout', '2s']);
  const alice = sdk(port, 'alice', { maxServerPingDelay: 1000 });
  try {
    await connected(alice);
    const reconnects = [];
    alice.on('connecting', (ctx) => reconnects.push(ctx));
    const a = alice.newSubscription('quiet');
    await subscribed(a);
    await new Promise((r) => setTimeout(r, 6000));  // several periods with nothing to say
    assert.deepEqual(reconnects, [], 'the SDK missed a ping');
    const got = next(a, 'publication');
    await a.publish({ after: 'silence' });
    assert.deepEqual((await got).data, { after: 'silence' });

    // A raw client that reads the pings but never answers: closed after a
    // period with no answer. One that answers {} stays.
    const url = `ws://127.0.0.1:${port}/connection/websocket`;
    const open = async (answer) => {
      const ws = new WebSocket(url);
      await new Promise((r) => ws.once('open', r));
      const pings = [];
      ws.on('message', (d) => {
        for (const line of d.toString().trim().split('\n')) {
          if (line === '{}') {
            pings.push(Date.now());
            if (answer) ws.send('{}');
          }
        }
      });
      ws.send(`{"id":1,"connect":{"token":"${token('raw')}"}}`);
      return { ws, pings, closed: new Promise((r) => ws.once('close', () => r(Date.now()))) };
    };
    const mute = await open(false);
    const polite = await open(true);
    const closedAt = await mute.closed;
    assert.ok(mute.pings.length >= 1, 'no ping before the close');
    assert.ok(closedAt - mute.pings[0] < 3500, 'closed long after the unanswered ping');
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(polite.ws.readyState, WebSocket.OPEN);
    assert.ok(polite.pings.length >= 3, `${polite.pings.length} pings`);
    polite.ws.close();
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
  }
});

test('the SDK refreshes its token as it expires, and a bad refresh ends the connection', async () => {
  // The SDK refreshes when the ttl runs out; the server waits
  // client.refresh_grace (1 s here) past exp for it.
  const { proc, port } = await startHeraldd(undefined, [...FLAGS, '--client.refresh_grace', '1s']);
  let asked = 0;
  // Tokens of 3 s: the connect reply says expires/ttl, the SDK asks
  // getToken and sends refresh; without it the connection would close at
  // 4 s (exp and the grace).
  const alice = sdk(port, 'alice', {
    token: token('alice', 3),
    getToken: async () => { asked += 1; return token('alice', 3); },
  });
  // expire_at, apart from exp: the connection's end is 2 s away although
  // the token is valid for an hour; the SDK refreshes then, once, and the
  // new token's expire_at (an hour) keeps the connection.
  let annAsked = 0;
  const soon = () => Math.floor(Date.now() / 1000);
  const ann = sdk(port, 'ann', {
    token: token('ann', 3600, { expire_at: soon() + 2 }),
    getToken: async () => { annAsked += 1; return token('ann', 3600, { expire_at: soon() + 3600 }); },
  });
  try {
    await connected(alice);
    await connected(ann);
    const reconnects = [];
    alice.on('connecting', (ctx) => reconnects.push(ctx));
    ann.on('connecting', (ctx) => reconnects.push(ctx));
    const a = alice.newSubscription('kept');
    await subscribed(a);
    await new Promise((r) => setTimeout(r, 7000));
    assert.ok(asked >= 2, `getToken asked ${asked} times`);
    assert.equal(annAsked, 1, 'expire_at: refreshed once, then an hour away');
    assert.deepEqual(reconnects, [], 'the connection did not last');
    const got = next(a, 'publication');
    await a.publish({ still: 'connected' });
    assert.deepEqual((await got).data, { still: 'connected' });

    // A token of another user: the connection is closed as invalid
    // (Centrifugo's 3500: the SDK does not reconnect).
    const mallory = sdk(port, 'mallory', {
      token: token('mallory', 2),
      getToken: async () => token('someone-else', 60),
    });
    await connected(mallory);
    const d = await next(mallory, 'disconnected', () => true, 6000);
    assert.equal(d.code, 3500);
    assert.equal(d.reason, 'invalid token');
  } finally {
    alice.disconnect();
    ann.disconnect();
    await stopHeraldd(proc);
  }
});

test('a token\'s channels subscribe server-side, with their options, and its info is the connection\'s', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  // subs gives a channel's options: its chan_info (info) and the data its
  // subscription carries (b64data here: {"welcome":true}).
  const alice = sdk(port, 'alice', {
    token: token('alice', 3600, {
      channels: ['news'],
      info: { name: 'Ann' },
      subs: { sport: { info: { seat: 'A1' }, b64data: 'eyJ3ZWxjb21lIjp0cnVlfQ==' } },
    }),
  });
  const bob = sdk(port, 'bob');
  try {
    const serverSide = next(alice, 'subscribed', (c) => c.channel === 'news');
    const withOptions = next(alice, 'subscribed', (c) => c.channel === 'sport');
    await connected(alice);
    assert.equal((await serverSide).channel, 'news');
    assert.deepEqual((await withOptions).data, { welcome: true });
    await connected(bob);
    const seats = await bob.presence('sport');
    const [seat] = Object.values(seats.clients);
    assert.deepEqual([seat.user, seat.connInfo, seat.chanInfo], ['alice', { name: 'Ann' }, { seat: 'A1' }]);
    const b = bob.newSubscription('news');
    await subscribed(b);
    const got = next(alice, 'publication', (c) => c.channel === 'news');
    await b.publish({ n: 1 });
    assert.deepEqual((await got).data, { n: 1 });
    const presence = await b.presence();
    const ann = Object.values(presence.clients).find((c) => c.user === 'alice');
    assert.deepEqual(ann.connInfo, { name: 'Ann' });
  } finally {
    alice.disconnect();
    bob.disconnect();
    await stopHeraldd(proc);
  }
});

test('a token\'s override changes one subscription\'s presence, join and leave', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  // Alice's connection token subscribes her to "stage" unlisted and
  // unannounced; her subscription token for "$vip" sends her its joins and
  // leaves though she does not ask (force_push_join_leave).
  const alice = sdk(port, 'alice', {
    token: token('alice', 3600, {
      subs: { stage: { override: { presence: { value: false }, join_leave: { value: false } } } },
    }),
  });
  const bob = sdk(port, 'bob');
  try {
    await connected(bob);
    const b = bob.newSubscription('stage', { joinLeave: true });
    await subscribed(b);
    const bobHeard = [];
    b.on('join', (j) => bobHeard.push(j.info.user));
    const onStage = next(alice, 'subscribed', (c) => c.channel === 'stage');
    await connected(alice);
    await onStage;
    const presence = await b.presence();
    assert.deepEqual(Object.values(presence.clients).map((c) => c.user), ['bob']);
    assert.deepEqual(await b.presenceStats(), { numClients: 1, numUsers: 1 });
    // Alice is subscribed, only not seen: the publication reaches her, and
    // bob, who asked for joins, heard none before it.
    const got = next(alice, 'publication', (c) => c.channel === 'stage');
    const echo = next(b, 'publication');
    await b.publish({ n: 1 });
    await got;
    await echo;
    assert.deepEqual(bobHeard, []);

    const vip = alice.newSubscription('$vip', {
      getToken: async (ctx) => token('alice', 3600, {
        channel: ctx.channel, override: { force_push_join_leave: { value: true } },
      }),
    });
    await subscribed(vip);
    const carol = sdk(port, 'carol');
    await connected(carol);
    const carolJoined = next(vip, 'join', (j) => j.info.user === 'carol');
    await subscribed(carol.newSubscription('$vip', {
      getToken: async (ctx) => token('carol', 3600, { channel: ctx.channel }),
    }));
    assert.equal((await carolJoined).info.user, 'carol');
    carol.disconnect();
  } finally {
    alice.disconnect();
    bob.disconnect();
    await stopHeraldd(proc);
  }
});

test('private channels need a subscription token, user-limited ones their users', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const alice = sdk(port, 'alice');
  const bob = sdk(port, 'bob');
  try {
    await connected(alice);
    await connected(bob);

    // dialog#alice,carol: alice is listed, bob is not (103: the SDK gives
    // the subscription up).
    await subscribed(alice.newSubscription('dialog#alice,carol'));
    const notBobs = bob.newSubscription('dialog#alice,carol');
    const refused = next(notBobs, 'unsubscribed');
    notBobs.subscribe();
    assert.equal((await refused).code, 103);

    // $secret without a token: refused the same way.
    const bare = bob.newSubscription('$secret');
    const noToken = next(bare, 'unsubscribed');
    bare.subscribe();
    assert.equal((await noToken).code, 103);
    bob.removeSubscription(bare);

    // With its token (getToken, as Centrifugo's docs have it): subscribed,
    // with the token's info as the channel info others see.
    let asked = 0;
    const priv = alice.newSubscription('$secret', {
      getToken: async (ctx) => {
        asked += 1;
        return token('alice', 3600, { channel: ctx.channel, info: { role: 'owner' }, data: { motd: 'hi' } });
      },
    });
    const privSubscribed = await subscribed(priv);
    assert.equal(asked, 1);
    // The token's data is the subscribe reply's.
    assert.deepEqual(privSubscribed.data, { motd: 'hi' });
    const presence = await priv.presence();
    const [entry] = Object.values(presence.clients);
    assert.deepEqual([entry.user, entry.chanInfo], ['alice', { role: 'owner' }]);
    const got = next(priv, 'publication');
    await priv.publish({ text: 'in private' });
    assert.deepEqual((await got).data, { text: 'in private' });
    // Bob, not subscribed, may not read it by other ways.
    await assert.rejects(bob.history('$secret'), (e) => e.code === 103);
    await assert.rejects(bob.publish('$secret', {}), (e) => e.code === 103);

    // A subscription token of another user: the connection is closed as
    // invalid (3500), as Centrifugo closes it.
    const mallory = sdk(port, 'mallory');
    await connected(mallory);
    const lied = mallory.newSubscription('$secret', {
      getToken: async () => token('alice', 3600, { channel: '$secret' }),
    });
    const closed = next(mallory, 'disconnected');
    lied.subscribe();
    assert.equal((await closed).code, 3500);
  } finally {
    alice.disconnect();
    bob.disconnect();
    await stopHeraldd(proc);
  }
});

test('a subscription token is refreshed with sub_refresh, and one not refreshed ends its subscription', async () => {
  // The SDK refreshes as the ttl runs out; the server waits
  // client.refresh_grace (1 s here) past exp for it.
  const { proc, port } = await startHeraldd(undefined, [...FLAGS, '--client.refresh_grace', '1s']);
  const alice = sdk(port, 'alice');
  try {
    await connected(alice);
    // Tokens of 2 s: the SDK asks getToken again as the ttl runs out and
    // sends sub_refresh; the subscription lives on.
    let asked = 0;
    let stall = false;
    let release = null;
    const sub = alice.newSubscription('$live', {
      getToken: async (ctx) => {
        asked += 1;
        if (stall) await new Promise((r) => { release = r; });
        return token('alice', 2, { channel: ctx.channel });
      },
    });
    await subscribed(sub);
    const resubscribes = [];
    sub.on('subscribing', (ctx) => resubscribes.push(ctx.code));
    await new Promise((r) => setTimeout(r, 5500));
    assert.ok(asked >= 3, `getToken asked ${asked} times`);
    assert.deepEqual(resubscribes, [], 'sub_refresh kept the subscription');
    assert.equal(sub.state, 'subscribed');

    // The next token does not come in time: the server ends the
    // subscription with 2501 (subscription expired), which the SDK takes
    // as "subscribe again", asking for a token once more.
    stall = true;
    const ended = next(sub, 'subscribing', (ctx) => ctx.code === 2501, 6000);
    assert.equal((await ended).code, 2501);
    stall = false;
    if (release) release();
    await next(sub, 'subscribed', () => true, 6000);
    const got = next(sub, 'publication');
    await sub.publish({ back: true });
    assert.deepEqual((await got).data, { back: true });
  } finally {
    alice.disconnect();
    await stopHeraldd(proc);
  }
});

test('ES256 tokens, signed by Node\'s crypto, open connections', async () => {
  // Centrifugo's ecdsa_public_key: a P-256 key; the token's signature is
  // R || S (RFC 7518 3.4, Node's ieee-p1363 encoding).
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = join(mkdtempSync(join(tmpdir(), 'es256-')), 'key.pub');
  writeFileSync(pem, publicKey.export({ type: 'spki', format: 'pem' }));
  const es256 = (sub) => {
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ sub, exp: Math.floor(Date.now() / 1000) + 600 })}`;
    const sig = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${sig.toString('base64url')}`;
  };
  const { proc, port } = await startHeraldd(undefined, ['--auth.ecdsa_public_key_file', pem]);
  const ellie = sdk(port, 'ellie', { token: es256('ellie') });
  try {
    const ctx = await connected(ellie);
    assert.match(ctx.client, /.+/);
    const sub = ellie.newSubscription('es');
    await subscribed(sub);
    const presence = await sub.presence();
    assert.deepEqual(Object.values(presence.clients).map((c) => c.user), ['ellie']);
  } finally {
    ellie.disconnect();
    await stopHeraldd(proc);
  }
});

test('the server\'s shutdown and a slow consumer reach the SDK as 3001 and 3008, and it reconnects', async () => {
  // A small queue, so that a client that stops reading overflows it soon.
  const { proc, port } = await startHeraldd(undefined,
    [...FLAGS, '--client.max_queue_bytes', '65536', '--rooms.max_publication_bytes', '65536',
      '--client.publish_rate', '100000']);
  // The SDK's WebSocket, recorded so the test can stop it reading.
  const sockets = [];
  class Recorded extends WebSocket {
    constructor(...args) {
      super(...args);
      sockets.push(this);
    }
  }
  const slow = sdk(port, 'slow', { websocket: Recorded });
  const writer = sdk(port, 'writer');
  try {
    await connected(slow);
    await connected(writer);
    const s = slow.newSubscription('flood');
    await subscribed(s);
    const w = writer.newSubscription('flood');
    await subscribed(w);
    // The slow client's socket stops reading (ws's net.Socket), so the
    // kernel's buffers fill, then the server's queue for it: closed with
    // Centrifugo's 3008 (slow), which the SDK reconnects from.
    sockets[0]._socket.pause();
    const closed = next(slow, 'connecting', (ctx) => ctx.code === 3008, 20000);
    const chunk = { pad: 'x'.repeat(60000) };
    for (let i = 0; i < 400; i += 1) {
      await w.publish(chunk);
      if (sockets[0].readyState !== WebSocket.OPEN) break;
    }
    const resubscribed = next(s, 'subscribed', () => true, 15000);
    sockets[0]._socket.resume();
    assert.equal((await closed).code, 3008);
    // Back, and its subscription recovered from where it stopped.
    assert.equal((await resubscribed).wasRecovering, true);

    // Shutdown: every client is told 3001 (the SDK reconnects).
    const down = next(writer, 'connecting', (ctx) => ctx.code === 3001);
    await stopHeraldd(proc);
    assert.equal((await down).code, 3001);
  } finally {
    slow.disconnect();
    writer.disconnect();
    await stopHeraldd(proc);
  }
});

test('subscription tokens verified by their own key, as Centrifugo\'s client.subscription_token', async () => {
  const SUB_SECRET = 'subscription-tokens-own-secret-32-bytes!';
  const { proc, port } = await startHeraldd(undefined,
    [...FLAGS, '--auth.subscription_hmac_secret', SUB_SECRET]);
  const { ws, replies } = await rawSocket(port);
  try {
    ws.send([
      // The connection token with the connection tokens' key.
      `{"id":1,"connect":{"token":"${token('eve')}"}}`,
      // A subscription token with the subscription tokens' key: subscribed.
      `{"id":2,"subscribe":{"channel":"$vault","token":"${token('eve', 60, { channel: '$vault' }, SUB_SECRET)}"}}`,
      // One signed with the connection tokens' key: refused (103).
      `{"id":3,"subscribe":{"channel":"$safe","token":"${token('eve', 60, { channel: '$safe' })}"}}`,
    ].join('\n'));
    await until(() => replies.size >= 3);
    assert.ok(replies.get(1).connect, JSON.stringify(replies.get(1)));
    assert.ok(replies.get(2).subscribe, JSON.stringify(replies.get(2)));
    assert.equal(replies.get(3).error?.code, 103, JSON.stringify(replies.get(3)));
    // And a connection token signed with the subscription key opens nothing.
    const mallory = sdk(port, 'mallory', { token: token('mallory', 60, {}, SUB_SECRET) });
    const gone = next(mallory, 'disconnected');
    mallory.connect();
    assert.equal((await gone).code, 101);
  } finally {
    ws.close();
    await stopHeraldd(proc);
  }
});

test('subscription tokens and sub_refresh that do not fit are refused, the connection kept', async () => {
  const { proc, port } = await startHeraldd(undefined, FLAGS);
  const { ws, replies } = await rawSocket(port);
  try {
    const expired = token('eve', -10, { channel: '$x' });
    ws.send([
      `{"id":1,"connect":{"token":"${token('eve')}"}}`,
      // No subscription of this channel came with a token (103).
      `{"id":2,"sub_refresh":{"channel":"plain","token":"${token('eve', 60, { channel: 'plain' })}"}}`,
      // Not a JWT, a connection token (no channel claim), and an expired
      // subscription token (109: the SDK fetches a new one).
      '{"id":3,"subscribe":{"channel":"$x","token":"garbage"}}',
      `{"id":4,"subscribe":{"channel":"$x","token":"${token('eve')}"}}`,
      `{"id":5,"subscribe":{"channel":"$x","token":"${expired}"}}`,
      '{"id":6,"subscribe":{"channel":"$x"}}',
      '{"id":7,"presence":{"channel":"$x"}}',
    ].join('\n'));
    await until(() => replies.size >= 7);
    assert.deepEqual([2, 3, 4, 5, 6, 7].map((id) => replies.get(id).error?.code),
      [103, 103, 103, 109, 103, 103]);
    assert.equal(ws.readyState, WebSocket.OPEN);
  } finally {
    ws.close();
    await stopHeraldd(proc);
  }
});
