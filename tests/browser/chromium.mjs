// Debian's headless Chromium for the browser tests (driven by
// playwright-core, no browser download), and the fixture most of them
// share: one heraldd and one browser for the whole file, started before its
// first test and stopped after its last (heraldd checked as stopHeraldd
// checks it: exit 0 on SIGTERM, no sanitizer report).
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// `args`: Chromium flags beyond --no-sandbox (a test runs as root here).
export function launchChromium(args = []) {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', ...args] });
}

// Registers the file's before() and after(); the returned object's
// `heraldd` (its process), `port`, `base` (http://127.0.0.1:PORT) and
// `browser` are set once before() ran.
export function heralddAndChromium(flags = []) {
  const fixture = { heraldd: null, port: 0, base: '', browser: null };
  before(async () => {
    const d = await startHeraldd(undefined, flags);
    fixture.heraldd = d.proc;
    fixture.port = d.port;
    fixture.base = `http://127.0.0.1:${d.port}`;
    fixture.browser = await launchChromium();
  });
  after(async () => {
    if (fixture.browser) await fixture.browser.close();
    if (fixture.heraldd) await stopHeraldd(fixture.heraldd);
  });
  return fixture;
}
