// A real EventSource in Debian's headless Chromium reads heraldd's SSE
// stream (GET /sse) through a TCP relay this test controls. The relay cuts
// the connection; while the browser's own reconnection is held back,
// publications are missed; then the browser reconnects by itself with the
// Last-Event-ID it kept, and gets every missed publication once, in order,
// then the live ones.
// Run by ctest: node --test tests/browser/sse.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverApi } from '../support/heraldd.mjs';
import { heralddAndChromium } from './chromium.mjs';
import { startRelay } from '../support/relay.mjs';
import { waitFor } from '../support/wait.mjs';

const fx = heralddAndChromium();
const publish = (room, data) => serverApi(fx.port, 'publish', { room, data });

test('an EventSource cut off resumes exactly where it stopped', async () => {
  const relay = await startRelay(fx.port);
  try {
    const page = await fx.browser.newPage();
    page.on('pageerror', (e) => { throw e; });
    // Any page of the relay's origin: the stream is then same-origin.
    await page.goto(`http://127.0.0.1:${relay.port}/healthz`);
    await page.evaluate(() => {
      window.got = [];
      window.opened = [];
      const es = new EventSource('/sse?room=news&room=chat%3Alobby&user=alice');
      es.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.pub) window.got.push({ id: e.lastEventId, room: m.pub.room, offset: m.pub.offset, data: m.pub.data });
      };
      es.addEventListener('subscribed', (e) => window.opened.push(JSON.parse(e.data)));
      es.addEventListener('recovery', (e) => window.opened.push({ recovery: JSON.parse(e.data) }));
    });
    const count = (what) => page.evaluate((w) => window[w].length, what);
    await waitFor('the opening', async () => (await count('opened')) === 2);
    for (const n of [1, 2, 3]) await publish('news', n);
    await publish('chat:lobby', 'hi');
    await waitFor('four publications', async () => (await count('got')) === 4);

    relay.hold();
    relay.cut();
    // The browser reconnects by itself; held at the relay meanwhile.
    await waitFor('the browser to reconnect', async () => relay.waiting() === 1);
    for (const n of [4, 5, 6]) await publish('news', n);
    await publish('chat:lobby', 'missed');
    relay.release();
    await waitFor('the second opening', async () => (await count('opened')) === 4);
    await publish('news', 7);
    await waitFor('nine publications', async () => (await count('got')) === 9);

    const got = await page.evaluate(() => window.got);
    // Per room, every offset once and in order (rooms are separate streams:
    // the recovered ones of two rooms may come in either room's turn).
    const inRoom = (room) => got.filter((p) => p.room === room).map((p) => p.offset);
    assert.deepEqual(inRoom('news'), [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(inRoom('chat:lobby'), [1, 2]);
    assert.equal(got[got.length - 1].data, 7);
    const opened = await page.evaluate(() => window.opened);
    assert.deepEqual(opened.slice(2).map((o) => [o.room, o.recovered]), [['news', true], ['chat:lobby', true]]);
    // The reconnection carried the id of the last publication seen.
    const reconnect = relay.requests[relay.requests.length - 1];
    assert.match(reconnect, new RegExp(`Last-Event-ID: ${got[3].id.replace(/[.]/g, '\\.')}`, 'i'));
    // Nothing more arrives: each publication came once. A last one in each
    // room comes after anything the stream still had for it, so once both
    // are in, a duplicate would have been seen.
    await publish('news', 8);
    await publish('chat:lobby', 'end');
    await waitFor('the last two', async () => (await count('got')) >= 11);
    assert.deepEqual((await page.evaluate(() => window.got)).slice(9).map((p) => p.data).sort(), [8, 'end'].sort());
    assert.equal(await count('got'), 11);
    await page.close();
  } finally {
    relay.close();
  }
});

test('herald.js falls back to SSE and HTTP publishing when WebSockets are refused', async () => {
  const relay = await startRelay(fx.port, { refuseUpgrades: true });
  try {
    const page = await fx.browser.newPage();
    page.on('pageerror', (e) => { throw e; });
    await page.goto(`http://127.0.0.1:${relay.port}/healthz`);
    await page.evaluate(async (relayPort) => {
      const { HeraldClient } = await import('/herald.js');
      const client = new HeraldClient(`ws://127.0.0.1:${relayPort}/ws`, { user: 'alice', minDelayMs: 20 });
      window.client = client;
      window.got = [];
      window.recoveries = [];
      client.addEventListener('publication', (e) => window.got.push(e.detail));
      client.addEventListener('recovery', (e) => window.recoveries.push(e.detail));
      client.start();
      // Issued while nothing is open: carried over to the fallback.
      window.subscribed = await client.subscribe('help:desk');
      window.sent = await client.publish('help:desk', { text: 'over http' });
    }, relay.port);
    assert.equal(await page.evaluate(() => window.client.transport), 'sse');
    assert.equal(await page.evaluate(() => window.client.state), 'connected');
    assert.equal(await page.evaluate(() => window.sent.offset), 1);
    const got = () => page.evaluate(() => window.got.map((p) => [p.offset, p.data, p.info?.user]));
    await waitFor('its own publication', async () => (await got()).length === 1);
    assert.deepEqual(await got(), [[1, { text: 'over http' }, 'alice']]);
    // Commands SSE cannot carry say so.
    const history = await page.evaluate(() => window.client.history('help:desk').then(() => 'answered', (e) => e.code));
    assert.equal(history, 108);

    // Cut off: the stream resumes by itself, missing nothing.
    relay.hold();
    relay.cut();
    await waitFor('the stream to reconnect', async () => relay.waiting() === 1);
    await publish('help:desk', 'while away');
    relay.release();
    await page.evaluate(() => window.client.publish('help:desk', 'after'));
    await waitFor('three publications', async () => (await got()).length === 3);
    assert.deepEqual((await got()).map((p) => p[0]), [1, 2, 3]);
    assert.deepEqual((await got()).map((p) => p[1]), [{ text: 'over http' }, 'while away', 'after']);
    assert.deepEqual(await page.evaluate(() => window.recoveries), []);
    await page.evaluate(() => window.client.close());
    await page.close();
  } finally {
    relay.close();
  }
});
