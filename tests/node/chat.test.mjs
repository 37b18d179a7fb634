// Two Node.js clients (the `ws` package, as a web backend or a browser-like
// client would use) chat through a real heraldd started with no
// configuration but a free port. Run by ctest: node --test tests/node/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHeraldd } from '../support/heraldd.mjs';
import { Client as WsClient } from './ws_client.mjs';

const HERALDD = process.env.HERALDD;

class Client extends WsClient {
  constructor(port) { super(`ws://127.0.0.1:${port}/ws`); }
}

test('two ws clients chat through heraldd', async () => {
  assert.ok(HERALDD, 'set HERALDD to the heraldd binary');
  const { proc, port } = await startHeraldd();
  try {
    const alice = new Client(port);
    const bob = new Client(port);
    await Promise.all([alice.open(), bob.open()]);
    alice.send({ id: 1, connect: { user: 'alice' } });
    bob.send({ id: 1, connect: { user: 'bob' } });
    assert.equal((await alice.reply(1)).result.user, 'alice');
    assert.equal((await bob.reply(1)).result.user, 'bob');
    alice.send({ id: 2, subscribe: { room: 'chat:lobby' } });
    bob.send({ id: 2, subscribe: { room: 'chat:lobby' } });
    await alice.reply(2);
    await bob.reply(2);

    alice.send({ id: 3, publish: { room: 'chat:lobby', data: { text: 'hi bob' } } });
    let m = await bob.next();
    assert.deepEqual(m.pub.data, { text: 'hi bob' });
    assert.equal(m.pub.info.user, 'alice');
    assert.equal(m.pub.offset, 1);

    bob.send({ id: 3, publish: { room: 'chat:lobby', data: { text: 'hi alice' } } });
    for (;;) {
      m = await alice.next();
      if (m.pub && m.pub.info.user === 'bob') break;
    }
    assert.deepEqual(m.pub.data, { text: 'hi alice' });
    assert.equal(m.pub.offset, 2);
    alice.ws.close();
    bob.ws.close();
  } finally {
    proc.kill('SIGTERM');
  }
});
