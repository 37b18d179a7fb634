// A TCP relay to a loopback port, for the browser tests that must cut a
// connection or hold a reconnection at a moment of their choosing (a real
// outage, which a client cannot tell from a network failure). cut() closes
// every connection through it; while held, new connections wait (their
// first bytes kept for inspection) until release(). With refuseUpgrades it
// answers a WebSocket upgrade 502, as a proxy that does not carry
// WebSockets does.
import { createServer, connect } from 'node:net';

export function startRelay(target, { refuseUpgrades = false } = {}) {
  const open = new Set();
  let held = null;
  const requests = [];
  const pipe = (client, firstChunk) => {
    const upstream = connect(target, '127.0.0.1');
    open.add(client);
    open.add(upstream);
    if (firstChunk) upstream.write(firstChunk);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => { client.destroy(); upstream.destroy(); open.delete(client); open.delete(upstream); };
    client.on('error', drop); upstream.on('error', drop);
    client.on('close', drop); upstream.on('close', drop);
  };
  const server = createServer((client) => {
    client.once('data', (chunk) => {
      client.pause();
      requests.push(chunk.toString('latin1'));
      if (refuseUpgrades && /^upgrade: websocket/im.test(chunk.toString('latin1'))) {
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      if (held) held.push([client, chunk]); else { pipe(client, chunk); client.resume(); }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: server.address().port,
    requests,
    cut() { for (const s of open) s.destroy(); open.clear(); },
    hold() { held = []; },
    release() { const waiting = held; held = null; for (const [c, chunk] of waiting) { pipe(c, chunk); c.resume(); } },
    waiting: () => (held ? held.length : 0),
    close() { this.cut(); server.close(); },
  })));
}
