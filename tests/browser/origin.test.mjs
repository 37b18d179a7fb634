// Another site's page against a dev-mode heraldd, in Debian's headless
// Chromium (docs/security.md): the page at http://evil.example (a local
// server the browser resolves there) tries what any page a developer visits
// could try: open a WebSocket to heraldd as any user, POST to its API with
// fetch and with a form-encoded body, and, by DNS rebinding, load heraldd's
// own pages under its name. Each is refused and nothing is lost; the same
// page listed in server.allowed_origins connects. The web app itself runs
// under its Content-Security-Policy with no violation.
// Run by ctest: node --test tests/browser/origin.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { launchChromium } from './chromium.mjs';


let heraldd;  // dev mode, no origins listed
let listed;   // the attacker's origin listed
let site;     // serves the other site's page
let sitePort;
let browser;
const json = { 'Content-Type': 'application/json' };

// The other site's page: it reports what it managed into window.outcome.
const PAGE = `<!doctype html><title>elsewhere</title><script>
async function attack(port) {
  const out = {};
  out.ws = await new Promise((resolve) => {
    const ws = new WebSocket('ws://127.0.0.1:' + port + '/ws');
    ws.onopen = () => { ws.send('{"id":1,"connect":{"user":"victim"}}'); };
    ws.onmessage = (e) => { resolve('connected: ' + e.data); ws.close(); };
    ws.onerror = () => resolve('refused');
  });
  try {
    const r = await fetch('http://127.0.0.1:' + port + '/api/keywords/demo/flush',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    out.fetch = 'answered ' + r.status;
  } catch (e) { out.fetch = 'blocked'; }
  // A "simple" request, as a form makes: sent without a preflight.
  await fetch('http://127.0.0.1:' + port + '/api/keywords/demo/flush',
    { method: 'POST', mode: 'no-cors', body: 'a=b',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }).catch(() => {});
  return out;
}
</script>`;

before(async () => {
  const d = await startHeraldd();
  heraldd = d.proc;
  heraldd.port = d.port;
  site = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(PAGE);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = site.address().port;
  const l = await startHeraldd(undefined, ['--server.allowed_origins', `http://evil.example:${sitePort}`]);
  listed = l.proc;
  listed.port = l.port;
  // evil.example resolves to this machine, as a rebinding attacker makes it.
  // So does 127.0.0.1.evil.example, an ordinary public name that only looks
  // like a loopback address.
  browser = await launchChromium(
    ['--host-resolver-rules=MAP evil.example 127.0.0.1, MAP 127.0.0.1.evil.example 127.0.0.1']);
});

after(async () => {
  if (browser) await browser.close();
  if (site) site.close();
  for (const p of [heraldd, listed]) if (p) await stopHeraldd(p);
});

async function dictionary(port) {
  const r = await fetch(`http://127.0.0.1:${port}/api/keywords/demo`);
  return r.text();
}

test('another site cannot connect or call the API, and flushes nothing', async () => {
  const add = await fetch(`http://127.0.0.1:${heraldd.port}/api/keywords/demo/add`, {
    method: 'POST', headers: json,
    body: JSON.stringify({ keywords: [{ keyword: 'heck', action: 'mask' }] }),
  });
  assert.equal(add.status, 200, await add.text());

  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://evil.example:${sitePort}/`);
  const out = await page.evaluate((port) => attack(port), heraldd.port);
  assert.equal(out.ws, 'refused');
  assert.equal(out.fetch, 'blocked');
  assert.match(await dictionary(heraldd.port), /heck/, 'the dictionary kept its keyword');
  await page.context().close();
});

test('a public name that starts with 127. is not loopback', async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://127.0.0.1.evil.example:${sitePort}/`);
  const out = await page.evaluate((port) => attack(port), heraldd.port);
  assert.equal(out.ws, 'refused');
  assert.match(await dictionary(heraldd.port), /heck/, 'the dictionary kept its keyword');
  const res = await page.goto(`http://127.0.0.1.evil.example:${heraldd.port}/`);
  assert.equal(res.status(), 403);
  await page.context().close();
});

test('DNS rebinding: heraldd refuses requests addressed to another name', async () => {
  const page = await (await browser.newContext()).newPage();
  const res = await page.goto(`http://evil.example:${heraldd.port}/`);
  assert.equal(res.status(), 403);
  assert.match(await res.text(), /host_not_allowed/);
  await page.context().close();
});

test('the same page connects once its origin is listed', async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://evil.example:${sitePort}/`);
  const out = await page.evaluate((port) => attack(port), listed.port);
  assert.match(out.ws, /^connected: .*"client"/);
  await page.context().close();
});

test('the web app runs under its Content-Security-Policy with no violation', async () => {
  const page = await (await browser.newContext()).newPage();
  const violations = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  page.on('pageerror', (e) => violations.push(String(e)));
  const res = await page.goto(`http://127.0.0.1:${heraldd.port}/`);
  assert.match(res.headers()['content-security-policy'], /frame-ancestors 'none'/);
  await page.fill('#name', 'carol');
  await page.click('#signin button');
  await page.waitForSelector('#status[data-state="connected"]');
  await page.waitForSelector('#room-list li[data-room="chat:lobby"]');
  assert.deepEqual(violations, []);
  await page.context().close();
});
