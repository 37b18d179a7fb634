// Centrifugo's JWKS with its own JavaScript SDK (npm `centrifuge`,
// unchanged): keys made by Node's crypto and exported as JWKs, tokens
// signed by it naming them by kid. A set from a file (auth.jwks_file), and
// one served over https by an identity provider that rotates its keys
// (auth.jwks_url): a token naming a key the provider has just published
// is refused as temporary (an SSE opening with 503), the set is fetched
// again (once, however many such attempts), and the SDK's own retry
// connects; the set is also fetched again every auth.jwks_refresh, and
// subscription tokens may have a set URL of their own. Run by ctest:
// node --test tests/node/centrifuge_jwks.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { SECRET, sdk, next, connected, subscribed } from './centrifuge_helpers.mjs';

// A JWT with `kid` in its header, signed by Node's crypto.
function signed(sub, alg, kid, key, claims = {}) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = { sub, exp: Math.floor(Date.now() / 1000) + 600, ...claims };
  const input = `${b64({ alg, kid, typ: 'JWT' })}.${b64(payload)}`;
  const sig = sign('sha256', Buffer.from(input),
    alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${sig.toString('base64url')}`;
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const RSA_JWK = { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', use: 'sig', alg: 'RS256' };
const EC_JWK = { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-1' };

test('a JWK set\'s keys, exported by Node\'s crypto, verify the tokens that name them', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'jwks-')), 'jwks.json');
  writeFileSync(file, JSON.stringify({ keys: [RSA_JWK, EC_JWK] }));
  const { proc, port } = await startHeraldd(undefined, ['--auth.jwks_file', file]);
  const rita = sdk(port, 'rita', { token: signed('rita', 'RS256', 'rsa-1', rsa.privateKey) });
  const ella = sdk(port, 'ella', { token: signed('ella', 'ES256', 'ec-1', ec.privateKey) });
  // A kid the set does not have, and a key's token under the other kid.
  const stray = sdk(port, 'stray', { token: signed('stray', 'RS256', 'rsa-2', rsa.privateKey) });
  const swapped = sdk(port, 'swapped', { token: signed('swapped', 'RS256', 'ec-1', rsa.privateKey) });
  try {
    await connected(rita);
    await connected(ella);
    const sub = ella.newSubscription('jwks');
    await subscribed(sub);
    const presence = await sub.presence();
    assert.deepEqual(Object.values(presence.clients).map((c) => c.user), ['ella']);
    // Refused as any token that does not verify (101, not retried).
    for (const [refused, reason] of [[stray, 'token kid names no key of the JWK set'],
      [swapped, 'token alg is not HS256/384/512, RS256/384/512 or ES256/384 with a configured key']]) {
      const closed = next(refused, 'disconnected');
      refused.connect();
      const d = await closed;
      assert.deepEqual([d.code, d.reason], [101, reason]);
    }
  } finally {
    for (const c of [rita, ella, stray, swapped]) c.disconnect();
    await stopHeraldd(proc);
  }
});

// An identity provider over https (a certificate the test made, given to
// heraldd as auth.jwks_ca_file) whose set the test changes, counting GETs.
async function provider(keys) {
  const dir = mkdtempSync(join(tmpdir(), 'jwks-https-'));
  const cert = join(dir, 'idp.crt');
  const key = join(dir, 'idp.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=idp',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const idp = { keys, gets: 0, cert };
  idp.server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    if (req.url !== '/.well-known/jwks.json') return res.writeHead(404).end();
    idp.gets += 1;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: idp.keys }));
  });
  await new Promise((r) => idp.server.listen(0, '127.0.0.1', r));
  idp.url = `https://127.0.0.1:${idp.server.address().port}/.well-known/jwks.json`;
  return idp;
}

test('a JWK set from an https URL follows the provider\'s key rotation', async () => {
  const idp = await provider([RSA_JWK]);
  const { proc, port } = await startHeraldd(undefined,
    ['--auth.jwks_url', idp.url, '--auth.jwks_ca_file', idp.cert]);
  const rita = sdk(port, 'rita', { token: signed('rita', 'RS256', 'rsa-1', rsa.privateKey) });
  const ella = sdk(port, 'ella', { token: signed('ella', 'ES256', 'ec-1', ec.privateKey) });
  try {
    await connected(rita);
    assert.equal(idp.gets, 1, 'fetched once, at start');
    // The provider publishes a new key; a token naming it arrives: refused
    // as temporary (the SDK retries every 100-500 ms), the set fetched
    // again once (not per attempt, and not before 5 s after the last
    // fetch), and then the SDK's retry connects.
    idp.keys = [RSA_JWK, EC_JWK];
    const errors = [];
    ella.on('error', (ctx) => errors.push(ctx.error));
    const ctx = next(ella, 'connected', () => true, 15000);
    ella.connect();
    await ctx;
    assert.equal(idp.gets, 2, 'one fetch for the new kid, whatever the number of attempts');
    assert.ok(errors.length >= 1, 'the first attempt was refused');
    assert.ok(errors.every((e) => e.temporary === true), JSON.stringify(errors));
    const sub = ella.newSubscription('rotated');
    await subscribed(sub);
  } finally {
    rita.disconnect();
    ella.disconnect();
    await stopHeraldd(proc);
    idp.server.close();
  }
});

// auth.jwks_refresh: the set is fetched again on its own, so a key the
// provider publishes is in it before any token names it.
test('a JWK set URL is fetched again every auth.jwks_refresh', async () => {
  const idp = await provider([RSA_JWK]);
  const { proc, port } = await startHeraldd(undefined, ['--auth.jwks_url', idp.url,
    '--auth.jwks_ca_file', idp.cert, '--auth.jwks_refresh', '1s']);
  const ella = sdk(port, 'ella', { token: signed('ella', 'ES256', 'ec-1', ec.privateKey) });
  try {
    idp.keys = [RSA_JWK, EC_JWK];
    const before = idp.gets;
    const deadline = Date.now() + 5000;
    while (idp.gets < before + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(idp.gets >= before + 2, `fetched ${idp.gets - before} times in 5 s`);
    // The new key is there already: the first attempt connects.
    const errors = [];
    ella.on('error', (ctx) => errors.push(ctx.error));
    await connected(ella);
    assert.deepEqual(errors, []);
  } finally {
    ella.disconnect();
    await stopHeraldd(proc);
    idp.server.close();
  }
});

// Centrifugo's client.subscription_token.jwks_public_endpoint: connection
// tokens by the HMAC secret, subscription tokens by the provider's set
// alone, which follows its rotation the same way.
test('subscription tokens verified by a JWK set URL of their own', async () => {
  const idp = await provider([RSA_JWK]);
  const { proc, port } = await startHeraldd(undefined, ['--auth.hmac_secret', SECRET,
    '--auth.subscription_jwks_url', idp.url, '--auth.jwks_ca_file', idp.cert]);
  const ella = sdk(port, 'ella');
  const byKey = sdk(port, 'ella', { token: signed('ella', 'RS256', 'rsa-1', rsa.privateKey) });
  try {
    await connected(ella);
    assert.equal(idp.gets, 1, 'fetched once, at start');
    const rsaSub = ella.newSubscription('$rsa', {
      getToken: async (ctx) => signed('ella', 'RS256', 'rsa-1', rsa.privateKey, { channel: ctx.channel }),
    });
    await subscribed(rsaSub);
    // A key the provider has just published: refused as temporary, the
    // SDK resubscribes, the set is fetched once more, and it subscribes.
    idp.keys = [RSA_JWK, EC_JWK];
    const ecSub = ella.newSubscription('$ec', {
      getToken: async (ctx) => signed('ella', 'ES256', 'ec-1', ec.privateKey, { channel: ctx.channel }),
    });
    const errors = [];
    ecSub.on('error', (ctx) => errors.push(ctx.error));
    const ok = next(ecSub, 'subscribed', () => true, 15000);
    ecSub.subscribe();
    await ok;
    assert.equal(idp.gets, 2, 'one fetch for the new kid');
    assert.ok(errors.length >= 1 && errors.every((e) => e.temporary === true), JSON.stringify(errors));
    // The set is the subscription tokens' alone: a connection token signed
    // by its key is refused (101, not retried).
    const closed = next(byKey, 'disconnected');
    byKey.connect();
    assert.equal((await closed).code, 101);
  } finally {
    ella.disconnect();
    byKey.disconnect();
    await stopHeraldd(proc);
    idp.server.close();
  }
});

test('a JWK set URL heraldd cannot use is told at start, and a bad scheme stops it', async () => {
  const idp = await provider([RSA_JWK]);
  try {
    // No CA for the provider's certificate: heraldd starts, says why, and
    // refuses tokens with a kid as temporary (the SDK keeps retrying).
    const { proc, port } = await startHeraldd(undefined, ['--auth.jwks_url', idp.url]);
    assert.match(proc.output(), /jwks not fetched at start.*certificate/);
    assert.equal(idp.gets, 0);
    const rita = sdk(port, 'rita', { token: signed('rita', 'RS256', 'rsa-1', rsa.privateKey) });
    const err = next(rita, 'error');
    rita.connect();
    const e = (await err).error;
    assert.equal(e.temporary, true, JSON.stringify(e));
    rita.disconnect();
    // An SSE stream opened with such a token: 503 with Retry-After (try
    // again), not the 401 of a bad token.
    const token = signed('rita', 'RS256', 'rsa-1', rsa.privateKey);
    const r = await fetch(`http://127.0.0.1:${port}/sse?room=news`,
      { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), '1');
    assert.match(await r.text(), /fetched again/);
    await stopHeraldd(proc);
    const bad = spawnSync(process.env.HERALDD, ['--server.listen', '127.0.0.1:0', '--auth.jwks_url',
      'ftp://127.0.0.1/jwks.json'], { encoding: 'utf8', timeout: 10000 });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr + bad.stdout, /auth\.jwks_url: 'ftp:\/\/127\.0\.0\.1\/jwks\.json' is not an http:\/\/ or https:\/\/ URL/);
  } finally {
    idp.server.close();
  }
});

