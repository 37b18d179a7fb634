// wss:// and https:// served by heraldd itself (server.tls_*), with Node's
// TLS client verifying the certificate the test made with the openssl
// command line. Clients chat over wss; a reply far larger than one TLS
// write (64 KiB of plaintext) arrives whole; SIGHUP swaps the certificate
// for new connections while the open ones carry on; heraldd then exits 0
// on SIGTERM. A message over the limit closes with 1009 whose close frame
// arrives over TLS. Run by ctest: node --test tests/node/tls.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { Client } from './ws_client.mjs';

const HERALDD = process.env.HERALDD;

function makePair(dir, stem, cn) {
  const cert = join(dir, `${stem}.crt`);
  const key = join(dir, `${stem}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${cn}`,
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert, key };
}

// Resolves with the first line of heraldd's output matching `re`.
function waitForLine(proc, re) {
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`no line ${re} in:\n${out}`)), 10000);
    const onData = (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => re.test(l));
      if (!line) return;
      clearTimeout(t);
      proc.stdout.off('data', onData);
      proc.stderr.off('data', onData);
      resolve(line);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
  });
}

async function connect(port, ca, user) {
  const c = new Client(`wss://127.0.0.1:${port}/ws`, { ca: readFileSync(ca) });
  await c.open();
  c.send({ id: 1, connect: { user } });
  assert.equal((await c.reply(1)).result.user, user);
  return c;
}

test('wss: chat, a reply larger than one TLS write, and a certificate reload', async () => {
  assert.ok(HERALDD, 'set HERALDD to the heraldd binary');
  const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'));
  const first = makePair(dir, 'first', 'first');
  const second = makePair(dir, 'second', 'second');
  const served = { cert: join(dir, 'served.crt'), key: join(dir, 'served.key') };
  copyFileSync(first.cert, served.cert);
  copyFileSync(first.key, served.key);
  const { proc, port } = await startHeraldd(HERALDD, [
    '--server.tls_cert_file', served.cert, '--server.tls_key_file', served.key,
    '--client.publish_rate', '1000']);
  try {
    const alice = await connect(port, first.cert, 'alice');
    const bob = await connect(port, first.cert, 'bob');
    assert.equal(alice.ws._socket.getPeerCertificate().subject.CN, 'first');
    alice.send({ id: 2, subscribe: { room: 'chat:tls' } });
    const sub = await alice.reply(2);

    // 100 publications of ~1 KiB: recovered in one reply of ~110 KiB,
    // written as two TLS writes and more.
    const text = 'x'.repeat(1000);
    for (let i = 1; i <= 100; ++i) {
      bob.send({ id: 10 + i, publish: { room: 'chat:tls', data: { i, text } } });
      assert.equal((await bob.reply(10 + i)).result.offset, i);
    }
    const carol = await connect(port, first.cert, 'carol');
    carol.send({ id: 2, subscribe: { room: 'chat:tls', since: { epoch: sub.result.epoch, offset: 0 } } });
    const recovered = await carol.reply(2);
    assert.equal(recovered.result.recovered, true);
    assert.deepEqual(recovered.result.publications.map((p) => p.data.i),
      Array.from({ length: 100 }, (_, k) => k + 1));
    for (let i = 1; i <= 100; ++i) assert.equal((await alice.next()).pub.data.i, i);

    // SIGHUP with the second pair in place: a new connection gets it...
    copyFileSync(second.cert, served.cert);
    copyFileSync(second.key, served.key);
    const reloaded = waitForLine(proc, /tls certificate reloaded/);
    proc.kill('SIGHUP');
    await reloaded;
    const dave = await connect(port, second.cert, 'dave');
    assert.equal(dave.ws._socket.getPeerCertificate().subject.CN, 'second');
    // ...and the connections made before it carry on.
    bob.send({ id: 200, publish: { room: 'chat:tls', data: { after: 'reload' } } });
    assert.deepEqual((await alice.next()).pub.data, { after: 'reload' });
    for (const c of [alice, bob, carol, dave]) c.ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await stopHeraldd(proc);
  }
});

// heraldd refuses a message over client.max_message_bytes after its first
// read, with most of the message still in flight. It then reads and drops
// what arrives until the client has the close frame (a lingering close):
// closing at once would leave unread bytes, which make the kernel send a
// reset, and over TLS the reset destroys the close frame (the client sees
// 1006 and would reconnect).
test('wss: a message over client.max_message_bytes closes with 1009, and the close frame arrives', async () => {
  assert.ok(HERALDD, 'set HERALDD to the heraldd binary');
  const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'));
  const pair = makePair(dir, 'only', 'only');
  const { proc, port } = await startHeraldd(HERALDD, [
    '--server.tls_cert_file', pair.cert, '--server.tls_key_file', pair.key]);
  try {
    const c = await connect(port, pair.cert, 'big');
    const closed = new Promise((resolve) => {
      c.ws.on('error', () => {});  // a reset is reported as 1006 below
      c.ws.once('close', (code) => resolve(code));
    });
    c.ws.send('x'.repeat(4 << 20));  // 4 MiB against the 64 KiB default
    assert.equal(await closed, 1009);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await stopHeraldd(proc);
  }
});
