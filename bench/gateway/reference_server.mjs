// The reference server for the G2 fan-out benchmark: the broadcast server a
// user would write with Node.js and the `ws` package, speaking the subset of
// Herald's protocol the load generator uses (connect, subscribe, publish), so
// the same client load runs against both. It is written the way the `ws`
// documentation teaches broadcasting, with the one optimization every guide
// gives: the push is serialized once per publication, not per recipient.
//
//   node bench/gateway/reference_server.mjs PORT
// prints "listening addr=127.0.0.1:PORT" once ready (PORT 0 picks one).
import { WebSocketServer } from 'ws';

const port = Number(process.argv[2] || 0);
const wss = new WebSocketServer({ host: '127.0.0.1', port, maxPayload: 4 << 20 });
const rooms = new Map(); // room -> Set of sockets
const offsets = new Map(); // room -> last offset
const epoch = 'ref00000';

wss.on('connection', (ws) => {
  const mine = new Set();
  ws.on('message', (raw) => {
    for (const line of raw.toString().split('\n')) {
      if (!line) continue;
      const cmd = JSON.parse(line);
      const id = cmd.id;
      if (cmd.connect) {
        ws.send(JSON.stringify({ id, result: { client: String(Math.random()), user: cmd.connect.user || '' } }));
      } else if (cmd.subscribe) {
        const room = cmd.subscribe.room;
        if (!rooms.has(room)) rooms.set(room, new Set());
        rooms.get(room).add(ws);
        mine.add(room);
        ws.send(JSON.stringify({ id, result: { epoch, offset: offsets.get(room) || 0, recovered: false, publications: [] } }));
      } else if (cmd.publish) {
        const room = cmd.publish.room;
        const offset = (offsets.get(room) || 0) + 1;
        offsets.set(room, offset);
        const push = JSON.stringify({ pub: { room, offset, epoch, data: cmd.publish.data } });
        for (const peer of rooms.get(room) || []) {
          if (peer.readyState === 1) peer.send(push);
        }
        ws.send(JSON.stringify({ id, result: { offset, epoch } }));
      } else {
        ws.send(JSON.stringify({ id, error: { code: 104, message: 'unknown command' } }));
      }
    }
  });
  ws.on('close', () => {
    for (const room of mine) rooms.get(room)?.delete(ws);
  });
});

wss.on('listening', () => {
  console.log(`listening addr=127.0.0.1:${wss.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
