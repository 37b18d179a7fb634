// The web app over https:// and wss:// served by heraldd itself
// (server.tls_*), in Debian's headless Chromium. The browser trusts exactly
// the test's certificate, by the SHA-256 of its public key
// (--ignore-certificate-errors-spki-list), not by ignoring TLS errors: the
// page loads over https, the app opens wss:// on the same origin, and two
// users chat. Run by ctest: node --test tests/browser/tls.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './chromium.mjs';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';


let dir;
let heraldd;
let base;
let browser;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'herald-tls-browser-'));
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const spki = execSync(`openssl x509 -pubkey -noout -in ${cert} | openssl pkey -pubin -outform der `
    + '| openssl dgst -sha256 -binary | base64').toString().trim();
  const d = await startHeraldd(undefined, ['--server.tls_cert_file', cert, '--server.tls_key_file', key]);
  heraldd = d.proc;
  base = `https://127.0.0.1:${d.port}`;
  browser = await launchChromium([`--ignore-certificate-errors-spki-list=${spki}`]);
});

after(async () => {
  if (browser) await browser.close();
  if (heraldd) await stopHeraldd(heraldd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function signIn(name) {
  const page = await (await browser.newContext()).newPage();
  page.on('pageerror', (e) => { throw e; });
  const sockets = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto(base + '/');
  await page.fill('#name', name);
  await page.click('#signin button');
  await page.waitForSelector('#status[data-state="connected"]');
  return { page, sockets };
}

test('the web app over https and wss: two users chat', async () => {
  const alice = await signIn('alice');
  const bob = await signIn('bob');
  assert.equal(await alice.page.evaluate(() => location.protocol), 'https:');
  assert.ok(alice.sockets.length > 0 && alice.sockets.every((u) => u.startsWith('wss://')),
    `the app connects over wss: ${alice.sockets}`);
  for (const { page } of [alice, bob]) await page.click('#room-list li[data-room="chat:lobby"]');
  await alice.page.fill('#text', 'hello over tls');
  await alice.page.click('#send button');
  await bob.page.waitForFunction(() => [...document.querySelectorAll('#messages li:not(.pending) .text')]
    .some((t) => t.textContent === 'hello over tls'));
});
