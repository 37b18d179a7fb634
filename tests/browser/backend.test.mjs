// The web app's cookie sign-in through the example application backend
// (examples/backend/, docs/backend.md), in Debian's headless Chromium: a
// user signs in on the backend's own page, which sets an HttpOnly session
// cookie and sends the browser back to the web app; the app connects with
// no name ({"connect":{}}), heraldd asks the backend's connect hook who the
// cookie is, and the app shows the backend's user, in the room the backend
// subscribed server-side (never subscribed again by the page). Two such
// users chat; the rpc hook answers "whoami"; a browser without the cookie,
// or signed out, gets the backend's "sign in first" with the way to sign in.
// Cookies go by host, not port: the backend's (127.0.0.1:B) reaches
// heraldd's WebSocket (127.0.0.1:H).
// Run by ctest: node --test tests/browser/backend.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './chromium.mjs';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { startExampleBackend } from '../support/example_backend.mjs';

const ARTIFACTS = process.env.HERALD_ARTIFACTS || join(tmpdir(), 'herald-browser');
mkdirSync(ARTIFACTS, { recursive: true });
// Generous: a loaded 2-core machine runs this beside other tests.
const WAIT = 60000;

let heraldd;
let backend;
let app;      // the web app's URL, http://127.0.0.1:H/
let browser;

// A free loopback port, for heraldd: the backend must know the web app's
// address (it redirects there) before heraldd, which must know the
// backend's, starts.
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  // The port may be taken between its probe and heraldd's bind: try again.
  for (let attempt = 1; ; ++attempt) {
    const port = await freePort();
    app = `http://127.0.0.1:${port}/`;
    backend = await startExampleBackend(app);
    try {
      const d = await startHeraldd(undefined, ['--server.listen', `127.0.0.1:${port}`,
        '--proxy.connect_url', `${backend.url}connect`, '--proxy.rpc_url', `${backend.url}rpc`,
        '--proxy.subscribe_url', `${backend.url}subscribe`, '--rooms.subscribe_proxy', 'true',
        '--proxy.publish_url', `${backend.url}publish`, '--rooms.publish_proxy', 'true',
        '--proxy.timeout', '10s']);
      heraldd = d.proc;
      break;
    } catch (err) {
      backend.proc.kill('SIGTERM');
      if (attempt === 3) throw err;
    }
  }
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  if (backend) backend.proc.kill('SIGTERM');
  if (heraldd) await stopHeraldd(heraldd);
});

// A page in a fresh browser context (its own cookies) that records the
// frames its WebSockets send.
async function newPage() {
  const context = await browser.newContext();
  context.setDefaultTimeout(WAIT);
  await context.addInitScript(() => {
    window.sentFrames = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      window.sentFrames.push(String(data));
      return send.call(this, data);
    };
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  return page;
}

// Signs `name` in on the backend's page; the backend sends the browser on
// to the web app, which connects by cookie.
async function signInAtBackend(page, name) {
  await page.fill('#name', name);
  await page.click('#login button');
  await page.waitForURL((u) => u.href.startsWith(app) && u.searchParams.get('signin') === 'cookie');
  await page.waitForSelector('#status[data-state="connected"]');
  await page.waitForSelector('#room-list li[data-room="chat:lobby"]');
}

const texts = (page) => page.$$eval('#messages li:not(.pending)', (lis) =>
  lis.map((li) => `${li.querySelector('.from').textContent}: ${li.querySelector('.text').textContent}`));

let alice;
let bob;

test('signing in on the backend\'s page: the web app shows the backend\'s user', async () => {
  alice = await newPage();
  // The web app's link leads to the backend named by ?backend=.
  await alice.goto(`${app}?backend=${encodeURIComponent(backend.url)}`);
  await alice.click('#app-signin');
  await alice.waitForURL(backend.url);
  await signInAtBackend(alice, 'alice');
  assert.equal(await alice.textContent('#me'), 'alice');
  assert.equal(await alice.isVisible('#signin'), false, 'the sign-in form is gone');

  const { cookies, sent } = await alice.evaluate(() => ({ cookies: document.cookie, sent: window.sentFrames }));
  assert.doesNotMatch(cookies, /session=/, 'the session cookie is HttpOnly');
  const lines = sent.flatMap((f) => f.split('\n')).map((l) => JSON.parse(l));
  assert.deepEqual(lines[0].connect, {}, 'the connect names no user');
  // chat:lobby is the backend's server-side subscription: the page's
  // default subscribe to it is answered from the connect reply.
  const subscribed = lines.filter((l) => l.subscribe).map((l) => l.subscribe.room);
  assert.deepEqual(subscribed, ['chat:random']);
  await alice.waitForSelector('#room-list li[data-room="chat:random"]');

  const who = await alice.evaluate(() => window.heraldApp.client.command('rpc', { method: 'whoami' }));
  assert.equal(who.data.user, 'alice');
  assert.match(who.data.client, /^\w+$/, 'the connection\'s id, as heraldd sent it');
});

test('two users signed in by cookie chat in the server-side room', async () => {
  bob = await newPage();
  await bob.goto(backend.url);
  await signInAtBackend(bob, 'bob');
  assert.equal(await bob.textContent('#me'), 'bob');

  await alice.click('#room-list li[data-room="chat:lobby"]');
  await bob.click('#room-list li[data-room="chat:lobby"]');
  await alice.fill('#text', 'hello bob');
  await alice.click('#send button');
  await bob.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'hello bob'));
  await bob.fill('#text', 'hi alice');
  await bob.click('#send button');
  await alice.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'hi alice'));
  assert.deepEqual((await texts(alice)).slice(-2), ['alice: hello bob', 'bob: hi alice']);
  await alice.screenshot({ path: join(ARTIFACTS, 'backend-chat.png') });
});

// The server subscribes the lobby again on the reconnect (the backend's
// rooms), so the page does not: its connect gives the lobby's last position
// (subs) and the reply brings what was missed. Bob's message lands in the
// outage, which lasts until the test ends it: alice gets it once, from the
// connect reply.
test('a reconnect: the server-side room is not subscribed again, and nothing is lost', async () => {
  const sentBefore = await alice.evaluate(() => window.sentFrames.length);
  await alice.evaluate(() => window.heraldApp.client.disconnect());
  await alice.waitForSelector('#status[data-state="reconnecting"]');
  await bob.fill('#text', 'while you were away');
  await bob.click('#send button');
  await bob.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'while you were away'));
  assert.equal(await alice.getAttribute('#status', 'data-state'), 'reconnecting', 'offline throughout');
  await alice.evaluate(() => window.heraldApp.client.reconnect());
  await alice.waitForSelector('#status[data-state="connected"]');
  await alice.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'while you were away'));
  assert.deepEqual((await texts(alice)).slice(-3),
    ['alice: hello bob', 'bob: hi alice', 'bob: while you were away']);
  const sent = await alice.evaluate((n) => window.sentFrames.slice(n), sentBefore);
  const lines = sent.flatMap((f) => f.split('\n')).map((l) => JSON.parse(l));
  assert.deepEqual(lines.filter((l) => l.subscribe).map((l) => l.subscribe.room), ['chat:random'],
    'only the page\'s own room is resubscribed');
  const connect = lines.find((l) => l.connect);
  assert.ok(connect?.connect.subs?.['chat:lobby']?.since?.epoch,
    `the reconnect gives the lobby's position: ${JSON.stringify(connect)}`);
});

test('the backend decides rooms and rewrites publications on their way', async () => {
  await alice.fill('#text', '/shrug');
  await alice.click('#send button');
  await bob.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === '¯\\_(ツ)_/¯'));
  // The sender recognises its own message in the rewritten form.
  await alice.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === '¯\\_(ツ)_/¯'));
  assert.equal((await texts(alice)).at(-1), 'alice: ¯\\_(ツ)_/¯');
  const refused = await alice.evaluate(() => window.heraldApp.client.subscribe('staff:ops')
    .then(() => 'subscribed', (err) => `${err.code} ${err.message}`));
  assert.equal(refused, '1403 staff:ops is for staff only');
});

// The backend's skip_history: "/me" reaches bob live, with no offset; no
// history has it, and bob's position stays on the stream, so a reconnect
// right after recovers exactly.
test('/me is shown live, kept out of history, and leaves the position where it was', async () => {
  await bob.evaluate(() => {
    window.recoveries = [];
    window.heraldApp.client.addEventListener('recovery', (e) => window.recoveries.push(e.detail));
  });
  await alice.fill('#text', '/me waves');
  await alice.click('#send button');
  for (const page of [alice, bob]) {
    await page.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
      .some((t) => t.textContent === '* alice waves'));
  }
  const history = await bob.evaluate(() => window.heraldApp.client.history('chat:lobby', { limit: 50 }));
  assert.ok(history.publications.length > 0);
  assert.ok(!history.publications.some((p) => p.data.text === '* alice waves'), 'not in history');

  await bob.evaluate(() => window.heraldApp.client.disconnect());
  await bob.waitForSelector('#status[data-state="reconnecting"]');
  await alice.fill('#text', 'after the wave');
  await alice.click('#send button');
  await alice.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'after the wave'));
  await bob.evaluate(() => window.heraldApp.client.reconnect());
  await bob.waitForSelector('#status[data-state="connected"]');
  await bob.waitForFunction(() => window.recoveries.some((r) => r.room === 'chat:lobby'));
  const recovery = await bob.evaluate(() => window.recoveries.find((r) => r.room === 'chat:lobby'));
  assert.equal(recovery.recovered, true, JSON.stringify(recovery));
  await bob.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'after the wave'));
  assert.deepEqual((await texts(bob)).slice(-2), ['alice: * alice waves', 'alice: after the wave']);
});

test('without the session cookie the web app shows the backend\'s error and the way to sign in', async () => {
  const eve = await newPage();
  await eve.goto(`${app}?signin=cookie&backend=${encodeURIComponent(backend.url)}`);
  await eve.waitForSelector('#signin-error:not([hidden])');
  assert.match(await eve.textContent('#signin-error'), /sign in first \(error 1401\)/);
  assert.equal(await eve.isVisible('#signin'), true);
  assert.equal(await eve.getAttribute('#app-signin', 'href'), backend.url);
  // With the connect hook on, a bare name is the backend's to judge too.
  await eve.fill('#name', 'alice');
  await eve.click('#signin button');
  await eve.waitForSelector('#signin-error:not([hidden])');
  assert.match(await eve.textContent('#signin-error'), /sign in first/);
  await eve.context().close();
});

test('signed out at the backend, the web app can no longer connect', async () => {
  await bob.goto(backend.url);
  await bob.waitForSelector('#user');
  await bob.click('#logout button');
  await bob.waitForSelector('#login');
  await bob.goto(`${app}?signin=cookie`);
  await bob.waitForSelector('#signin-error:not([hidden])');
  assert.match(await bob.textContent('#signin-error'), /sign in first/);
  await bob.context().close();
  await alice.context().close();
});
