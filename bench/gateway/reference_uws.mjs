// The second reference server for the G2 fan-out benchmark: uWebSockets.js,
// the fastest WebSocket server published for Node.js (its event loop, HTTP and
// WebSocket code are C++; JavaScript only sees callbacks), with a native
// pub/sub whose fan-out never enters JavaScript: one `app.publish` hands the
// push to C++, which queues it on every subscriber of the topic. It speaks
// the same protocol subset as reference_server.mjs (connect, subscribe,
// publish), so the same client load runs against heraldd, this and the
// Node.js `ws` server, and it is written the way uWS.js's documentation
// teaches pub/sub: `ws.subscribe(room)` on subscribe, `app.publish(room,
// push)` on publish (app.publish, not ws.publish: the latter skips the
// sender, and a G2 publisher is not a subscriber anyway). Like the `ws`
// server, it serializes each push once per publication.
//
// uWS.js comes from npm as @trufflesuite/uws-js-unofficial 20.30.0 (the
// binaries of uWebSockets.js v20.30.0 for Node.js 16, 18 and 20; installed
// by scripts/setup.sh). That package falls back to a JavaScript
// implementation on top of `ws` when no binary fits the running Node.js; this
// script refuses to run on the fallback rather than measure `ws` twice.
//
//   node bench/gateway/reference_uws.mjs PORT
// prints "listening addr=127.0.0.1:PORT" once ready (PORT 0 picks one).
import uWS from '@trufflesuite/uws-js-unofficial';

if (typeof uWS.SSLApp !== 'function') {
  console.error(
    `reference_uws: @trufflesuite/uws-js-unofficial gave its JavaScript fallback, not the ` +
      `native uWebSockets.js (no binary for Node.js ${process.version}, ABI ` +
      `${process.versions.modules}, ${process.platform}-${process.arch}; or UWS_USE_FALLBACK is set)`,
  );
  process.exit(1);
}

const port = Number(process.argv[2] || 0);
const offsets = new Map(); // room -> last offset
const epoch = 'ref00000';
const decoder = new TextDecoder();

const app = uWS.App().ws('/*', {
  compression: uWS.DISABLED,
  maxPayloadLength: 4 << 20,
  idleTimeout: 120,
  // Per subscriber: far above what the bench keeps in flight, so nobody is
  // skipped; past it a subscriber is closed (the bench counts a failure)
  // instead of silently missing publications.
  maxBackpressure: 64 << 20,
  closeOnBackpressureLimit: true,
  message: (ws, message) => {
    // `message` is only valid during this call: decode it now.
    for (const line of decoder.decode(message).split('\n')) {
      if (!line) continue;
      const cmd = JSON.parse(line);
      const id = cmd.id;
      if (cmd.connect) {
        ws.send(JSON.stringify({ id, result: { client: String(Math.random()), user: cmd.connect.user || '' } }), false);
      } else if (cmd.subscribe) {
        const room = cmd.subscribe.room;
        ws.subscribe(room);
        ws.send(JSON.stringify({ id, result: { epoch, offset: offsets.get(room) || 0, recovered: false, publications: [] } }), false);
      } else if (cmd.publish) {
        const room = cmd.publish.room;
        const offset = (offsets.get(room) || 0) + 1;
        offsets.set(room, offset);
        const push = JSON.stringify({ pub: { room, offset, epoch, data: cmd.publish.data } });
        app.publish(room, push, false);
        ws.send(JSON.stringify({ id, result: { offset, epoch } }), false);
      } else {
        ws.send(JSON.stringify({ id, error: { code: 104, message: 'unknown command' } }), false);
      }
    }
  },
  // Subscriptions end with the connection: uWS.js unsubscribes it itself.
});

app.listen('127.0.0.1', port, (listenSocket) => {
  if (!listenSocket) {
    console.error(`reference_uws: cannot listen on 127.0.0.1:${port}`);
    process.exit(1);
  }
  console.log(`listening addr=127.0.0.1:${uWS.us_socket_local_port(listenSocket)}`);
});
process.on('SIGTERM', () => process.exit(0));
