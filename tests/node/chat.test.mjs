// Two Node.js clients (the `ws` package, as a web backend or a browser-like
// client would use) chat through a real heraldd started with no
// configuration but a free port; then the same chat with permessage-deflate
// (client.compression), ws compressing and inflating on its own. Run by
// ctest: node --test tests/node/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHeraldd, stopHeraldd } from '../support/heraldd.mjs';
import { Client as WsClient } from './ws_client.mjs';

const HERALDD = process.env.HERALDD;

class Client extends WsClient {
  constructor(port, options = {}) { super(`ws://127.0.0.1:${port}/ws`, options); }
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
    await stopHeraldd(proc);
  }
});

// ~300 bytes of chat JSON, different each time (a realistic publication).
function chatData(i) {
  return {
    user: i % 2 ? 'alice' : 'bob',
    text: `Message ${i}: is anyone going to the planning meeting this afternoon? I can share ` +
      'my notes from last week, and the draft agenda is in the shared folder under planning. ' +
      'Let me know before three so I can book the larger room.',
    sent_at: new Date(Date.UTC(2026, 11, 2, 0, 0, i)).toISOString(),
    reply_to: null,
  };
}

test('ws clients with perMessageDeflate chat through heraldd with client.compression', async () => {
  assert.ok(HERALDD, 'set HERALDD to the heraldd binary');
  const { proc, port } = await startHeraldd(HERALDD, ['--client.compression', 'true']);
  try {
    // threshold 0: ws compresses every message it sends, commands included.
    const packed = new Client(port, { perMessageDeflate: { threshold: 0 } });
    const plain = new Client(port, { perMessageDeflate: false });
    await Promise.all([packed.open(), plain.open()]);
    assert.match(packed.ws.extensions, /^permessage-deflate/);
    assert.equal(plain.ws.extensions, '');
    packed.send({ id: 1, connect: { user: 'packed' } });
    plain.send({ id: 1, connect: { user: 'plain' } });
    await packed.reply(1);
    await plain.reply(1);
    packed.send({ id: 2, subscribe: { room: 'chat:lobby' } });
    plain.send({ id: 2, subscribe: { room: 'chat:lobby' } });
    await packed.reply(2);
    await plain.reply(2);
    const packedBefore = packed.ws._socket.bytesRead;
    const plainBefore = plain.ws._socket.bytesRead;

    const n = 50;
    for (let i = 1; i <= n; ++i) {
      // Both publish: the compressed client's publications arrive compressed.
      const from = i % 2 ? packed : plain;
      from.send({ id: 100 + i, publish: { room: 'chat:lobby', data: chatData(i) } });
    }
    const pushes = async (c) => {
      const got = [];
      while (got.length < n) {
        const m = await c.next();
        if (m.pub) got.push(m.pub);
      }
      return got;
    };
    const [a, b] = await Promise.all([pushes(packed), pushes(plain)]);
    // Two publishers interleave; the room's order (offsets) is one.
    const byTime = a.map((p) => p.data).sort((x, y) => x.sent_at.localeCompare(y.sent_at));
    for (let i = 1; i <= n; ++i) assert.deepEqual(byTime[i - 1], chatData(i));
    assert.deepEqual(a.map((p) => p.offset), b.map((p) => p.offset));
    // Byte for byte the same publication lines as the plain twin.
    const pubLines = (c) => c.lines.filter((l) => l.startsWith('{"pub":'));
    assert.deepEqual(pubLines(packed), pubLines(plain));
    assert.equal(b.length, n);
    // And fewer bytes on the wire for the compressing client.
    const packedBytes = packed.ws._socket.bytesRead - packedBefore;
    const plainBytes = plain.ws._socket.bytesRead - plainBefore;
    assert.ok(packedBytes < plainBytes * 0.9, `compressed ${packedBytes} B vs plain ${plainBytes} B`);
    packed.ws.close();
    plain.ws.close();
  } finally {
    await stopHeraldd(proc);
  }
});
