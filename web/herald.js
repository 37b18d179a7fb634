// herald.js: a small browser client for Herald's WebSocket protocol
// (docs/protocol.md). No dependencies; an ES module.
//
//   import { HeraldClient } from './herald.js';
//   const client = new HeraldClient('ws://127.0.0.1:8080/ws', { user: 'alice' });
//   (or { token }, or {} to let the server's connect hook name the user
//   from the page's cookies: see docs/backend.md)
//   client.addEventListener('publication', (e) => console.log(e.detail));
//   client.start();
//   await client.subscribe('chat:lobby');
//   await client.publish('chat:lobby', { text: 'hello' });
//
// What it does for you:
// - Frames: commands issued in the same tick go out as one frame (one line
//   each), up to `maxFrameBytes` (default 16 KiB) a frame: the server
//   closes a client for good (1009) on a message over its
//   client.max_message_bytes (default 64 KiB), which a reconnect's
//   resubscribes and the publishes written while offline, all sent in one
//   tick, could pass. Every received frame is split on '\n'.
// - Reconnects with exponential backoff and jitter after any close the
//   server marks as retryable (codes 3000-3499 and network failures), then
//   resubscribes every room with `since` = the last publication seen, so the
//   gap is recovered exactly; publications are deduplicated by offset.
//   A `recovery` event says, per room, whether the gap was recovered
//   (`recovered: false` means messages were lost: reload with history()).
//   disconnect() cuts the connection as a network failure would and keeps
//   the client offline (state 'reconnecting') until reconnect(), so a demo
//   or a test decides when the outage ends; disconnectFor(ms) ends it by
//   itself after `ms`.
// - Room lists: watchRooms() sends rooms.watch and keeps `client.rooms`
//   (an array of entries) up to date by applying each diff batch; a
//   `rooms` event fires after each batch. The watch is renewed after a
//   reconnect.
// - Server-side subscriptions: rooms the connect reply lists under `subs`
//   are subscribed already. They are tracked like any other, a subscribe
//   to one of them waiting for the connection is answered from the reply
//   (never sent), and a reconnect does not resubscribe them: connect gives
//   the server each one's last position (`subs`), and the reply carries
//   what was missed, delivered as for any room; a `recovery` event says
//   whether it was recovered (`recovered: false`: reload it with history()).
// - Commands return promises that settle with the reply's result, or reject
//   with a HeraldError {code, message}. A command issued while disconnected
//   waits for the connection (publish included: a publish whose reply was
//   lost to a disconnect is not retried, and the promise rejects). On a
//   closed client (close(), or a close for good) a command rejects at once
//   with code 0.
//
// - Falls back to Server-Sent Events when a WebSocket cannot be opened at
//   all (`sseFallbackAfter` attempts in a row that never opened, e.g. a
//   proxy that refuses the upgrade): the rooms are then read from one
//   EventSource on /sse (docs/protocol.md, "Server-Sent Events"), which
//   reconnects by itself and resumes exactly from its Last-Event-ID, and
//   publish() posts to /sse/publish. `client.transport` says which is in
//   use ('websocket' or 'sse'). Over SSE only subscribe, unsubscribe and
//   publish work; other commands reject with code 108 (not available).
//
// Events (EventTarget): 'state' {state}, 'connecterror' {code, message}
// (the server refused the connect: e.g. the backend's "sign in first";
// code 116, a backend that is unavailable, is retried with backoff),
// 'publication' {room, offset, epoch, data, info} (no offset and epoch:
// outside the stream, never recovered), 'recovery' {room,
// recovered, missed}, 'rooms' {rooms}, 'subscribed' {room, data} when the
// server subscribes the connection (data: the server API's, if any), 'unsubscribed' {room, code, reason,
// resubscribe} when it ends a subscription, 'push'
// {message} for other pushes (join, leave), 'disconnect' {code, reason, reconnect} once for each
// connection that ends other than by close(), before the state changes (the server's disconnect
// push, or the close itself when none came: 1009, or 1006 for a network
// failure; `reconnect` false: the client is now closed for good).
// A listener that throws does not disturb the client or the other
// listeners: EventTarget reports the exception (window.onerror) and goes
// on, so the state, room list and positions stay right.

const utf8 = new TextEncoder();

export class HeraldError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Applies one diff batch ({op, ...} objects) to `list` in place; throws on a
// diff that does not fit (a bug on one side).
export function applyRoomDiffs(list, diffs) {
  for (const d of diffs) {
    const at = (i, max) => {
      if (!(Number.isInteger(i) && i >= 0 && i <= max)) throw new Error(`diff ${d.op}: index ${i} out of range`);
      return i;
    };
    switch (d.op) {
      case 'reset': list.splice(0, list.length, ...d.values); break;
      case 'append': list.push(...d.values); break;
      case 'clear': list.length = 0; break;
      case 'push_front': list.unshift(d.value); break;
      case 'push_back': list.push(d.value); break;
      case 'pop_front': at(0, list.length - 1); list.shift(); break;
      case 'pop_back': at(0, list.length - 1); list.pop(); break;
      case 'insert': list.splice(at(d.index, list.length), 0, d.value); break;
      case 'set': list[at(d.index, list.length - 1)] = d.value; break;
      case 'remove': list.splice(at(d.index, list.length - 1), 1); break;
      case 'truncate': list.length = at(d.length, list.length); break;
      default: throw new Error(`unknown diff op ${d.op}`);
    }
  }
  return list;
}

export class HeraldClient extends EventTarget {
  constructor(url, { user = '', token = '', minDelayMs = 250, maxDelayMs = 5000,
    sseFallbackAfter = 2, maxFrameBytes = 16384 } = {}) {
    super();
    this.maxFrameBytes = maxFrameBytes;
    this.url = url;
    this.sseFallbackAfter = sseFallbackAfter; // 0: never fall back
    this.transport = 'websocket';
    this._opened = false;      // a WebSocket ever opened: its failures are outages, not a block
    this._failedOpens = 0;     // WebSocket attempts in a row that never opened
    this._sse = null;          // the EventSource, in the SSE fallback
    this._sseWaiting = new Map(); // room -> [{resolve, reject}] of subscribes awaiting the stream
    this._sseReopening = false;   // a reopen is scheduled for the end of this tick
    // Neither token nor user: `{"connect":{}}`, the connect hook's to decide.
    this.credentials = token ? { token } : user ? { user } : {};
    this.minDelayMs = minDelayMs;
    this.maxDelayMs = maxDelayMs;
    this.state = 'idle';      // idle, connecting, connected, reconnecting, closed
    this.rooms = [];          // the watched room list (see watchRooms)
    this.user = user;
    this._ws = null;
    this._nextId = 1;
    this._pending = new Map(); // id -> {resolve, reject, line}
    this._outbox = [];         // ids of commands waiting for the connection
    this._frames = [];         // frames being batched this tick: {lines, bytes}
    this._subs = new Map();    // room -> {epoch, offset} | null (no position yet)
    this._serverRooms = new Set(); // rooms the server subscribed (connect's subs)
    this._watch = null;        // the last rooms.watch params
    this._attempt = 0;
    this._holdUntil = 0;
    this._offline = false;     // disconnect(): no reconnect until reconnect()
    this._timer = null;
  }

  start() {
    if (this.state === 'idle' || this.state === 'closed') this._open();
  }

  close() {
    this._setState('closed');
    clearTimeout(this._timer);
    if (this._ws) this._ws.close(1000);
    if (this._sse) this._sse.close();
    this._sse = null;
    this._failPending(new HeraldError(0, 'client closed'), true);
  }

  // Cuts the connection as a network failure would and stays offline for
  // `ms` before the usual reconnect (for demos and tests of recovery).
  disconnectFor(ms) {
    this._holdUntil = Date.now() + ms;
    if (this._ws) this._ws.close(4000, 'simulated outage');
  }

  // Cuts the connection as a network failure would and stays offline until
  // reconnect(): an outage whose end the caller decides (a test publishes
  // while the client is known to be offline, state 'reconnecting', then
  // ends it). Commands issued meanwhile wait for the connection.
  disconnect() {
    if (this.transport !== 'websocket' || this.state === 'idle' || this.state === 'closed') return;
    this._offline = true;
    clearTimeout(this._timer);
    this._timer = null;
    if (this._ws) this._ws.close(4000, 'simulated outage');
  }

  // Ends an outage begun with disconnect() or disconnectFor(): connects now
  // (from the 'reconnecting' state; otherwise it only lifts the hold).
  reconnect() {
    this._offline = false;
    this._holdUntil = 0;
    if (this.state !== 'reconnecting' || this._ws) return;
    clearTimeout(this._timer);
    this._timer = null;
    this._open();
  }

  // `onResult`, if given, runs synchronously when the reply is read, before
  // any later message of the same frame: a subscribe reply must take effect
  // before the publications that follow it (a promise continuation would
  // run only after the whole frame).
  command(name, params = {}, onResult = null) {
    if (this.transport === 'sse') {
      return Promise.reject(new HeraldError(108, `${name} is not available over the SSE fallback`));
    }
    // Closed for good (close(), or a close the server marks final): no
    // connection will come to send it on, so waiting would hang the caller.
    if (this.state === 'closed') {
      return Promise.reject(new HeraldError(0, `${name}: the client is closed`));
    }
    const id = this._nextId++;
    const line = JSON.stringify({ id, [name]: params });
    return new Promise((resolve, reject) => {
      const now = this.state === 'connected' || name === 'connect';
      this._pending.set(id, { resolve, reject, line, sent: now, onResult, name, params });
      if (now) this._send(line);
      else this._outbox.push(id);
    });
  }

  // A room stays in _subs with a null position until its first reply; if
  // that subscribe fails (or its connection drops), the room is forgotten.
  subscribe(room) {
    if (this.transport === 'sse') return this._sseSubscribe(room);
    this._subs.set(room, null);
    return this.command('subscribe', { room }, (r) => {
      if (this._subs.has(room)) this._subs.set(room, { epoch: r.epoch, offset: r.offset });
    }).catch((err) => {
      if (this._subs.get(room) === null) this._subs.delete(room);
      throw err;
    });
  }

  async unsubscribe(room) {
    this._subs.delete(room);
    this._serverRooms.delete(room);
    if (this.transport === 'sse') {
      this._sseOpen();
      return {};
    }
    return this.command('unsubscribe', { room });
  }

  publish(room, data) {
    if (this.transport === 'sse') return this._ssePublish(room, data);
    return this.command('publish', { room, data });
  }
  history(room, opts = {}) { return this.command('history', { room, ...opts }); }
  readMarker(room) { return this.command('rooms.read', { room }); }
  tagRoom(room, tags) { return this.command('rooms.tag', { room, ...tags }); }
  joinRoom(room) { return this.command('rooms.join', { room }); }
  leaveRoom(room) { return this.command('rooms.leave', { room }); }
  markUnread(room, unread = true) { return this.command('rooms.mark_unread', { room, unread }); }
  // mode: 'all', 'mentions' or 'mute'.
  setNotify(room, mode) { return this.command('rooms.notify', { room, mode }); }
  morePages() { return this.command('rooms.page', { more: true }); }
  resetPages() { return this.command('rooms.page', { reset: true }); }

  // Starts (or changes) the room-list watch: {sort, filter, page_size}.
  watchRooms(params = {}) {
    this._watch = params;
    return this.command('rooms.watch', params);
  }

  // ---- internals

  _setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.dispatchEvent(new CustomEvent('state', { detail: { state } }));
  }

  _open() {
    this._setState(this._attempt === 0 ? 'connecting' : 'reconnecting');
    const ws = new WebSocket(this.url);
    this._ws = ws;
    this._disconnectTold = false; // this connection's end was reported (a disconnect push)
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this._opened = true;
      this._failedOpens = 0;
      this._onOpen();
    };
    ws.onmessage = (e) => {
      for (const line of String(e.data).split('\n')) {
        if (line) this._onMessage(JSON.parse(line));
      }
    };
    ws.onclose = (e) => this._onClose(e.code, e.reason, opened);
  }

  async _onOpen() {
    let r;
    let serverSubs = new Map();
    try {
      // The server's subscriptions take effect as the reply is read, before
      // publications later in its frame.
      r = await this.command('connect', this._connectParams(), (res) => {
        serverSubs = this._applyServerSubs(res.subs);
      });
    } catch (err) {
      if (err.code === 0) return; // lost with the connection: _onClose decides
      this.dispatchEvent(new CustomEvent('connecterror', { detail: { code: err.code, message: err.message } }));
      // A refusal closes the connection (3501: _onClose ends the client);
      // 116 (the backend unavailable) leaves it open: close it and retry.
      if (err.code === 116 && this._ws) this._ws.close(4000, 'backend unavailable');
      return;
    }
    this.user = r.user;
    this._attempt = 0;
    // Resubscribe first (from the last position seen), then flush what
    // waited, then renew the room-list watch.
    this._setState('connected');
    const resubs = [];
    // A room with no position yet has its first subscribe in the outbox.
    for (const [room, pos] of this._subs) {
      if (pos && !serverSubs.has(room)) resubs.push(this._resubscribe(room, pos));
    }
    for (const id of this._outbox.splice(0)) {
      const p = this._pending.get(id);
      if (!p) continue;
      const made = p.name === 'subscribe' ? serverSubs.get(p.params.room) : undefined;
      if (made) {
        this._pending.delete(id);
        if (p.onResult) p.onResult(made);
        p.resolve(made);
        continue;
      }
      p.sent = true;
      this._send(p.line);
    }
    if (this._watch) this.command('rooms.watch', this._watch).catch(() => {});
    await Promise.allSettled(resubs);
  }

  // Records the connect reply's `subs` (room -> {epoch, offset} or
  // {error}); returns the rooms subscribed, room -> that entry. A room the
  // client had a position in (a reconnect) cannot be recovered with `since`
  // (it is subscribed already): it is recovered only if nothing moved.
  _applyServerSubs(subs = {}) {
    const made = new Map();
    for (const [room, s] of Object.entries(subs)) {
      if (s.error) continue;
      made.set(room, s);
      this._serverRooms.add(room);
      const pos = this._subs.get(room);
      if (!pos) {
        this._subs.set(room, { epoch: s.epoch, offset: s.offset });
        continue;
      }
      // A reconnect gave this room's position in connect's subs: the entry
      // is a subscribe-with-since reply, missed publications included.
      let missed = 0;
      for (const p of s.publications ?? []) if (this._deliver(p)) ++missed;
      if (!s.recovered) this._subs.set(room, { epoch: s.epoch, offset: s.offset });
      this.dispatchEvent(new CustomEvent('recovery', { detail: { room, recovered: !!s.recovered, missed } }));
    }
    return made;
  }

  // connect's params: the credentials, and where this client stopped in
  // each server-side subscription (so that the server recovers them as a
  // subscribe with since would).
  _connectParams() {
    const params = { ...this.credentials };
    const subs = {};
    for (const room of this._serverRooms) {
      const pos = this._subs.get(room);
      if (pos) subs[room] = { since: pos };
    }
    if (Object.keys(subs).length) params.subs = subs;
    return params;
  }

  _resubscribe(room, pos) {
    const params = { room };
    if (pos) params.since = pos;
    return this.command('subscribe', params, (r) => {
      if (!this._subs.has(room)) return;
      let missed = 0;
      for (const p of r.publications) if (this._deliver(p)) ++missed;
      if (!r.recovered) this._subs.set(room, { epoch: r.epoch, offset: r.offset });
      if (pos) {
        this.dispatchEvent(new CustomEvent('recovery', { detail: { room, recovered: r.recovered, missed } }));
      }
    });
  }

  // Delivers a publication unless it was seen already; returns whether new.
  // One without an offset is outside the room's stream (the backend's
  // skip_history): delivered, and the position stays where it was.
  _deliver(p) {
    if (p.offset === undefined) {
      this.dispatchEvent(new CustomEvent('publication', { detail: p }));
      return true;
    }
    const pos = this._subs.get(p.room);
    if (pos && pos.epoch === p.epoch && p.offset <= pos.offset) return false;
    if (this._subs.has(p.room)) this._subs.set(p.room, { epoch: p.epoch, offset: p.offset });
    this.dispatchEvent(new CustomEvent('publication', { detail: p }));
    return true;
  }

  _onMessage(m) {
    if (m.id !== undefined) {
      const p = this._pending.get(m.id);
      if (!p) return;
      this._pending.delete(m.id);
      if (m.error) {
        p.reject(new HeraldError(m.error.code, m.error.message));
      } else {
        if (p.onResult) p.onResult(m.result);
        p.resolve(m.result);
      }
    } else if (m.pub) {
      this._deliver(m.pub);
    } else if (m.rooms) {
      applyRoomDiffs(this.rooms, m.rooms.diffs);
      this.dispatchEvent(new CustomEvent('rooms', { detail: { rooms: this.rooms } }));
    } else if (m.subscribe) {
      // The server subscribed this connection (docs/protocol.md, "subscribe
      // push"): kept as a server-side room, recovered on reconnect.
      this._applyServerSubs({ [m.subscribe.room]: m.subscribe });
      this.dispatchEvent(new CustomEvent('subscribed',
        { detail: { room: m.subscribe.room, data: m.subscribe.data } }));
    } else if (m.unsubscribe) {
      this._onUnsubscribe(m.unsubscribe);
    } else if (m.disconnect) {
      this._disconnectTold = true;
      this.dispatchEvent(new CustomEvent('disconnect', { detail: m.disconnect }));
    } else {
      this.dispatchEvent(new CustomEvent('push', { detail: { message: m } }));
    }
  }

  // The server ended a subscription (docs/protocol.md, "unsubscribe
  // push"): with `resubscribe` the room is subscribed again from the last
  // position seen (and recovered, as after a reconnect); otherwise it is
  // forgotten. Either way 'unsubscribed' {room, code, reason, resubscribe}
  // tells the application.
  _onUnsubscribe(u) {
    const pos = this._subs.get(u.room);
    if (u.resubscribe && pos) {
      this._resubscribe(u.room, pos).catch(() => this._subs.delete(u.room));
    } else {
      this._subs.delete(u.room);
      this._serverRooms.delete(u.room);
    }
    this.dispatchEvent(new CustomEvent('unsubscribed', { detail: u }));
  }

  // `opened`: this WebSocket opened (a connection that ends, not an
  // attempt that failed).
  _onClose(code, reason, opened) {
    const neverOpened = !this._opened;
    this._ws = null;
    // Commands in flight are lost with the connection.
    this._failPending(new HeraldError(0, 'disconnected'));
    if (this.state === 'closed') return;
    if (neverOpened && this.sseFallbackAfter > 0 && ++this._failedOpens >= this.sseFallbackAfter) {
      return this._startSse();
    }
    const retry = !(code >= 3500 && code <= 3999) && code !== 1009;
    // The server sends no disconnect push before some closes (1009, a
    // network failure has none at all): the app learns the code from the
    // close itself, once per connection either way.
    if (opened && !this._disconnectTold) {
      this.dispatchEvent(new CustomEvent('disconnect', { detail: { code, reason, reconnect: retry } }));
    }
    if (!retry) {
      this._setState('closed');
      this._failPending(new HeraldError(code, 'connection closed for good'), true);
      return;
    }
    this._attempt += 1;
    this._setState('reconnecting');
    if (this._offline) return; // reconnect() opens
    const backoff = Math.min(this.maxDelayMs, this.minDelayMs * 2 ** (this._attempt - 1));
    const delay = Math.max(backoff * (0.5 + Math.random() / 2), this._holdUntil - Date.now());
    this._timer = setTimeout(() => this._open(), delay);
  }

  // ---- the SSE fallback

  // The WebSocket never opened: switch for good. Commands waiting for the
  // connection are replayed over SSE (subscribes and publishes) or refused.
  _startSse() {
    this.transport = 'sse';
    const waiting = this._outbox.splice(0).map((id) => this._pending.get(id)).filter(Boolean);
    this._pending.clear();
    for (const p of waiting) {
      if (p.name === 'subscribe') this._sseSubscribe(p.params.room).then(p.resolve, p.reject);
      else if (p.name === 'publish') this._ssePublish(p.params.room, p.params.data).then(p.resolve, p.reject);
      else p.reject(new HeraldError(108, `${p.name} is not available over the SSE fallback`));
    }
    this._sseOpen();
  }

  _httpBase() {
    return this.url.replace(/^ws/, 'http').replace(/\/ws(\?.*)?$/, '');
  }

  // Who, as the query of /sse and /sse/publish (EventSource sends no headers).
  _identityQuery() {
    if (this.credentials.token) return `token=${encodeURIComponent(this.credentials.token)}`;
    if (this.credentials.user) return `user=${encodeURIComponent(this.credentials.user)}`;
    return '';
  }

  // (Re)opens the stream on every room, resuming each from its position;
  // once for all the changes made in the same tick.
  _sseOpen() {
    if (this._sseReopening) return;
    this._sseReopening = true;
    queueMicrotask(() => {
      this._sseReopening = false;
      this._sseOpenNow();
    });
  }

  _sseOpenNow() {
    if (this._sse) this._sse.close();
    this._sse = null;
    if (this.state === 'closed' || this._subs.size === 0) return;
    const q = [this._identityQuery()];
    const last = [];
    for (const [room, pos] of this._subs) {
      q.push(`room=${encodeURIComponent(room)}`);
      // The id's form (docs/protocol.md): '#' and ',' in a room escaped.
      if (pos) last.push(`${room.replaceAll('#', '%23').replaceAll(',', '%2C')}.${pos.epoch}.${pos.offset}`);
    }
    if (last.length) q.push(`last_event_id=${encodeURIComponent(last.join(','))}`);
    const es = new EventSource(`${this._httpBase()}/sse?${q.filter(Boolean).join('&')}`);
    this._sse = es;
    this._setState(this._opened ? 'reconnecting' : 'connecting');
    es.addEventListener('connected', (e) => {
      this.user = JSON.parse(e.data).user;
      this._setState('connected');
    });
    es.addEventListener('subscribed', (e) => {
      const s = JSON.parse(e.data);
      const pos = this._subs.get(s.room);
      if (pos === null) this._subs.set(s.room, { epoch: s.epoch, offset: s.offset });
      for (const w of this._sseWaiting.get(s.room) ?? []) w.resolve(s);
      this._sseWaiting.delete(s.room);
    });
    es.addEventListener('recovery', (e) => {
      const r = JSON.parse(e.data);
      if (this._subs.has(r.room)) this._subs.set(r.room, { epoch: r.epoch, offset: r.offset });
      this.dispatchEvent(new CustomEvent('recovery', { detail: { room: r.room, recovered: false, missed: 0 } }));
    });
    es.addEventListener('refused', (e) => {
      const r = JSON.parse(e.data);
      if (this._subs.get(r.room) === null) this._subs.delete(r.room);
      for (const w of this._sseWaiting.get(r.room) ?? []) w.reject(new HeraldError(r.error.code, r.error.message));
      this._sseWaiting.delete(r.room);
    });
    es.onmessage = (e) => this._onMessage(JSON.parse(e.data));
    // EventSource reconnects by itself (with Last-Event-ID); a stream the
    // server refused (an HTTP error) is closed for good.
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) {
        this._setState('closed');
        for (const [, ws] of this._sseWaiting) for (const w of ws) w.reject(new HeraldError(0, 'stream refused'));
        this._sseWaiting.clear();
      } else {
        this._setState('reconnecting');
      }
    };
  }

  // A subscribe over SSE: the stream is reopened with the room added (the
  // others resume from their positions); settles with its opening event.
  _sseSubscribe(room) {
    if (!this._subs.has(room)) this._subs.set(room, null);
    return new Promise((resolve, reject) => {
      const list = this._sseWaiting.get(room) ?? [];
      list.push({ resolve, reject });
      this._sseWaiting.set(room, list);
      this._sseOpen();
    });
  }

  async _ssePublish(room, data) {
    const r = await fetch(`${this._httpBase()}/sse/publish?${this._identityQuery()}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ room, data }),
    });
    const body = await r.json().catch(() => ({}));
    if (r.ok) return body.result;
    throw new HeraldError(body.error?.code ?? r.status, body.error?.message ?? `HTTP ${r.status}`);
  }

  // Rejects the commands that were sent (their replies are lost), or all of
  // them (including those waiting for the connection) when `all`.
  _failPending(err, all = false) {
    for (const [id, p] of this._pending) {
      if (!all && !p.sent) continue;
      p.reject(err);
      this._pending.delete(id);
    }
    if (all) this._outbox.length = 0;
  }

  // A line joins the tick's last frame while that stays within
  // maxFrameBytes (UTF-8, newlines included); a longer line goes alone.
  _send(line) {
    const bytes = utf8.encode(line).length;
    const last = this._frames[this._frames.length - 1];
    if (last && last.bytes + 1 + bytes <= this.maxFrameBytes) {
      last.lines.push(line);
      last.bytes += 1 + bytes;
      return;
    }
    this._frames.push({ lines: [line], bytes });
    if (this._frames.length > 1) return;
    queueMicrotask(() => {
      for (const frame of this._frames.splice(0)) {
        if (this._ws && this._ws.readyState === WebSocket.OPEN) this._ws.send(frame.lines.join('\n'));
      }
    });
  }
}
