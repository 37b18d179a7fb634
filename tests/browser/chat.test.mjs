// The web app served by heraldd, in Debian's headless Chromium driven by
// playwright-core (no browser download): two users chat, the room list
// moves and counts unread messages, the filter box narrows the list, a
// banned word arrives masked, and a cut connection recovers exactly what was
// missed. Each test saves a
// screenshot to $HERALD_ARTIFACTS (default: a temporary directory).
// HERALD_COMPRESSION=1 runs the same tests with client.compression on:
// Chromium offers permessage-deflate by itself, so every message then
// crosses compressed (ctest's browser_chat_deflate).
// Run by ctest: node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heralddAndChromium } from './chromium.mjs';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ARTIFACTS = process.env.HERALD_ARTIFACTS || join(tmpdir(), 'herald-browser');
const COMPRESSION = process.env.HERALD_COMPRESSION === '1';
mkdirSync(ARTIFACTS, { recursive: true });

// Every room is moderated with the dictionary "demo" (filled by the
// moderation test through the keyword API).
const fx = heralddAndChromium(['--rooms.moderation', 'demo',
  ...(COMPRESSION ? ['--client.compression', 'true'] : [])]);

async function signIn(name) {
  const page = await (await fx.browser.newContext()).newPage();
  page.on('pageerror', (e) => { throw e; });
  await page.goto(fx.base + '/');
  await page.fill('#name', name);
  await page.click('#signin button');
  await page.waitForSelector('#status[data-state="connected"]');
  assert.equal(await page.isVisible('#signin'), false, 'the sign-in form is gone');
  await page.waitForSelector('#room-list li[data-room="chat:lobby"]');
  return page;
}

const roomOrder = (page) => page.$$eval('#room-list li', (lis) => lis.map((li) => li.dataset.room));
const unreadOf = (page, room) =>
  page.$eval(`#room-list li[data-room="${room}"]`, (li) => li.querySelector('.unread')?.textContent || '0');
const texts = (page) => page.$$eval('#messages li:not(.pending) .text', (xs) => xs.map((x) => x.textContent));

async function waitFor(what, fn, timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last === true) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

test('the WebSocket is compressed exactly when client.compression is on', async () => {
  const page = await (await fx.browser.newContext()).newPage();
  await page.goto(fx.base + '/');
  // The page's own WebSocket, as herald.js opens it: what Chromium and the
  // server agreed on.
  const extensions = await page.evaluate((url) => new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.onopen = () => { resolve(ws.extensions); ws.close(); };
    ws.onerror = () => reject(new Error('no WebSocket'));
  }), fx.base.replace('http', 'ws') + '/ws');
  if (COMPRESSION) {
    assert.match(extensions, /^permessage-deflate; server_no_context_takeover; client_no_context_takeover/);
  } else {
    assert.equal(extensions, '');
  }
  await page.context().close();
});

test('two users chat; the room list moves the room to the top with an unread count', async () => {
  const alice = await signIn('alice');
  const bob = await signIn('bob');
  await bob.click('#room-list li[data-room="chat:random"]');
  await alice.click('#room-list li[data-room="chat:lobby"]');
  await alice.fill('#text', 'hello bob');
  await alice.click('#send button');

  // The lobby may already lead bob's list before the message arrives (the
  // rooms start without activity), so the wait is for both facts at once:
  // the room on top and its unread count, never one checked after the other.
  await waitFor('lobby first in bob\'s list with one unread', async () =>
    (await roomOrder(bob))[0] === 'chat:lobby' && (await unreadOf(bob, 'chat:lobby')) === '1'
      || [await roomOrder(bob), await unreadOf(bob, 'chat:lobby')]);
  await bob.screenshot({ path: join(ARTIFACTS, 'room-list-unread.png') });

  await bob.click('#room-list li[data-room="chat:lobby"]');
  await waitFor('bob sees the message', async () => (await texts(bob)).includes('hello bob'));
  await waitFor('unread cleared', async () => (await unreadOf(bob, 'chat:lobby')) === '0');
  await waitFor('alice sees her own message confirmed', async () => (await texts(alice)).includes('hello bob'));
  await alice.screenshot({ path: join(ARTIFACTS, 'chat.png') });
  await alice.context().close();
  await bob.context().close();
});

test('a banned word arrives masked; a rejected message is not sent', async () => {
  const add = await fetch(`${fx.base}/api/keywords/demo/add`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ keywords: [
      { keyword: 'heck', action: 'mask', category: 'mild' },
      { keyword: 'scam', action: 'reject', category: 'fraud' },
    ] }),
  });
  assert.equal(add.status, 200, await add.text());
  const frank = await signIn('frank');
  const grace = await signIn('grace');
  await frank.click('#room-list li[data-room="chat:lobby"]');
  await grace.click('#room-list li[data-room="chat:lobby"]');
  await frank.fill('#text', 'what the HECK');
  await frank.click('#send button');
  for (const page of [grace, frank]) {
    await waitFor('the masked message', async () => (await texts(page)).includes('what the ****') || await texts(page));
    assert.equal(await page.textContent('#messages li:last-child .moderation'), 'masked');
  }
  assert.equal((await texts(grace)).some((t) => /heck/i.test(t)), false, 'the word never reaches grace');
  await grace.screenshot({ path: join(ARTIFACTS, 'masked.png') });

  await frank.fill('#text', 'a great scam');
  await frank.click('#send button');
  await waitFor('a refusal notice', async () => (await frank.textContent('#notice')).includes('fraud'));
  await waitFor('the local echo gone', async () => (await frank.$('#messages li.pending')) === null);
  assert.equal((await texts(grace)).includes('a great scam'), false);
  await frank.screenshot({ path: join(ARTIFACTS, 'rejected.png') });
  await frank.context().close();
  await grace.context().close();
});

test('the filter box narrows the room list', async () => {
  const carol = await signIn('carol');
  await carol.fill('#join-room', 'team:ops');
  await carol.click('#join button');
  await waitFor('three rooms', async () => (await roomOrder(carol)).length === 3);
  await carol.fill('#filter', 'rand');
  await waitFor('only chat:random', async () => JSON.stringify(await roomOrder(carol)) === '["chat:random"]');
  await carol.screenshot({ path: join(ARTIFACTS, 'filter.png') });
  await carol.fill('#filter', '');
  await waitFor('all three again', async () => (await roomOrder(carol)).length === 3);
  await carol.context().close();
});

test('a cut connection recovers exactly the messages it missed', async () => {
  const dave = await signIn('dave');
  const erin = await signIn('erin');
  await dave.click('#room-list li[data-room="chat:random"]');
  await erin.click('#room-list li[data-room="chat:random"]');
  await dave.fill('#text', 'before');
  await dave.click('#send button');
  await waitFor('erin sees "before"', async () => (await texts(erin)).includes('before'));

  // The outage lasts until the test ends it, so that everything below
  // happens while erin is offline however slowly the machine runs it.
  await erin.evaluate(() => window.heraldApp.client.disconnect());
  await erin.waitForSelector('#status[data-state="reconnecting"]');
  for (const t of ['missed 1', 'missed 2', 'missed 3']) {
    await dave.fill('#text', t);
    await dave.click('#send button');
  }
  await waitFor('dave\'s three confirmed', async () => (await texts(dave)).filter((x) => x.startsWith('missed')).length === 3);
  // Erin writes while offline: local echo in the chat and the room list
  // until the server has it.
  await erin.fill('#text', 'written offline');
  await erin.click('#send button');
  assert.equal(await erin.textContent('#messages li.pending .text'), 'written offline');
  assert.match(await erin.textContent('#room-list li[data-room="chat:random"] .preview'), /written offline \(sending\)/);
  await erin.screenshot({ path: join(ARTIFACTS, 'reconnecting.png') });

  assert.equal(await erin.getAttribute('#status', 'data-state'), 'reconnecting', 'offline throughout');
  await erin.evaluate(() => window.heraldApp.client.reconnect());
  await erin.waitForSelector('#status[data-state="connected"]', { timeout: 30000 });
  await waitFor('erin has the three, once each, then hers', async () => {
    const got = await texts(erin);
    return JSON.stringify(got) === JSON.stringify(['before', 'missed 1', 'missed 2', 'missed 3', 'written offline']) || got;
  });
  await waitFor('dave gets what erin wrote offline', async () => (await texts(dave)).includes('written offline'));
  assert.equal(await erin.$('#messages li.pending'), null);
  await waitFor('a recovery notice', async () => (await erin.textContent('#notice')).includes('3 missed messages recovered'));
  await erin.screenshot({ path: join(ARTIFACTS, 'recovered.png') });
  await dave.context().close();
  await erin.context().close();
});

// The server batches a reply with whatever is queued after it into one
// frame, so the history a room opens with can share its frame with a
// publication made after the history was read. The client reads the whole
// frame before the page's `await history()` resumes: the publication must
// still be shown, after the history. The route below makes the batching
// happen every time (it holds the history reply until the room's next
// publication and sends both as one frame), which the real server does only
// when the two are queued together.
test('a publication in the same frame as the room\'s history is shown after it', async () => {
  const ivy = await (await fx.browser.newContext()).newPage();
  ivy.on('pageerror', (e) => { throw e; });
  let historyId = null;
  let held = null;
  await ivy.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      for (const line of String(m).split('\n')) {
        if (!line) continue;
        const c = JSON.parse(line);
        if (c.history && c.history.room === 'chat:random') historyId = c.id;
      }
      server.send(m);
    });
    server.onMessage((m) => {
      const lines = String(m).split('\n').filter(Boolean).map((l) => JSON.parse(l));
      if (held === null && historyId !== null && lines.some((l) => l.id === historyId)) {
        held = String(m);
        return;
      }
      if (held !== null && typeof held === 'string' && lines.some((l) => l.pub && l.pub.room === 'chat:random')) {
        ws.send(`${held}\n${m}`);
        held = true; // sent: everything else passes through
        return;
      }
      if (typeof held === 'string') held += `\n${m}`;
      else ws.send(m);
    });
    ws.onClose((code, reason) => server.close({ code, reason }));
    server.onClose((code, reason) => ws.close({ code, reason }));
  });
  await ivy.goto(fx.base + '/');
  await ivy.fill('#name', 'ivy');
  await ivy.click('#signin button');
  await ivy.waitForSelector('#room-list li[data-room="chat:random"]');
  await ivy.click('#room-list li[data-room="chat:random"]');
  await waitFor('the history reply held', async () => typeof held === 'string' || held);

  const hank = await signIn('hank');
  await hank.click('#room-list li[data-room="chat:random"]');
  await hank.fill('#text', 'in the history\'s frame');
  await hank.click('#send button');
  await waitFor('the two sent as one frame', async () => held === true || held);
  await waitFor('ivy sees it, last', async () => {
    const got = await texts(ivy);
    return got[got.length - 1] === 'in the history\'s frame' || got;
  });
  await ivy.context().close();
  await hank.context().close();
});
