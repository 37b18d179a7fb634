// What the tests of Centrifugo's SDK and API clients share
// (centrifuge_sdk.test.mjs, cent_api.test.mjs): tokens signed as
// Centrifugo's docs sign them, an SDK client on heraldd's
// /connection/websocket, and waiting for its events.
import { createHmac } from 'node:crypto';
import WebSocket from 'ws';
import { Centrifuge } from 'centrifuge';

export const SECRET = 'centrifuge-sdk-test-secret-of-32-bytes-or-more';

// An HS256 JWT as Centrifugo's docs sign them (sub, exp, and `extra`
// claims: channels, info, ...), with SECRET or `secret`.
export function token(sub, ttlSeconds = 3600, extra = {}, secret = SECRET) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const body = b64({ sub, exp: Math.floor(Date.now() / 1000) + ttlSeconds, ...extra });
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

export function sdk(port, user, options = {}) {
  return new Centrifuge(`ws://127.0.0.1:${port}/connection/websocket`,
    { websocket: WebSocket, token: token(user), minReconnectDelay: 100, maxReconnectDelay: 500, ...options });
}

// Resolves with the next `event` of `emitter` (an SDK client or
// subscription) whose context passes `pred`; fails after `ms`.
export function next(emitter, event, pred = () => true, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, on);
      reject(new Error(`no '${event}' in ${ms} ms`));
    }, ms);
    function on(ctx) {
      if (!pred(ctx)) return;
      clearTimeout(timer);
      emitter.off(event, on);
      resolve(ctx);
    }
    emitter.on(event, on);
  });
}

// Waits until `cond()` holds, checking every 10 ms; fails after `ms`.
export async function until(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not so after ${ms} ms: ${cond}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function connected(client) {
  const ctx = next(client, 'connected');
  client.connect();
  return ctx;
}

export async function subscribed(sub) {
  const ctx = next(sub, 'subscribed');
  sub.subscribe();
  return ctx;
}

// A WebSocket of the test's own on /connection/websocket, open, and the
// replies it gets, by command id (for commands the SDK would never send).
export async function rawSocket(port) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/connection/websocket`);
  await new Promise((r) => ws.once('open', r));
  const replies = new Map();
  ws.on('message', (d) => {
    for (const l of d.toString().trim().split('\n')) {
      const m = JSON.parse(l);
      if (m.id) replies.set(m.id, m);
    }
  });
  return { ws, replies };
}
