// A WebSocket client for the Node.js tests (the `ws` package): reads
// messages in order (frames split on newlines) and waits for replies by id.
// `options` go to the ws constructor (e.g. `ca` for wss://).
import WebSocket from 'ws';

export class Client {
  constructor(url, options = {}) {
    this.ws = new WebSocket(url, options);
    this.lines = [];  // every line received, as sent
    this.queue = [];
    this.waiters = [];
    this.ws.on('message', (data) => {
      for (const line of data.toString().split('\n')) {
        if (!line) continue;
        this.lines.push(line);
        const msg = JSON.parse(line);
        const w = this.waiters.shift();
        if (w) w(msg); else this.queue.push(msg);
      }
    });
  }
  open() { return new Promise((resolve, reject) => { this.ws.once('open', resolve); this.ws.once('error', reject); }); }
  send(obj) { this.ws.send(JSON.stringify(obj)); }
  next(timeoutMs = 5000) {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no message in time')), timeoutMs);
      this.waiters.push((m) => { clearTimeout(t); resolve(m); });
    });
  }
  async reply(id) {
    for (;;) {
      const m = await this.next();
      if (m.id === id) return m;
    }
  }
}
