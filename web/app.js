// The demo web app: sign in with a name (dev mode) or through the
// application's backend (its session cookie, see docs/backend.md), a live
// room list (rooms.watch), a chat view with history and local echo, and a
// visible reconnect and recovery indicator. Everything protocol-related is
// in herald.js.
import { HeraldClient } from '/herald.js';

const $ = (id) => document.getElementById(id);
const DEFAULT_ROOMS = ['chat:lobby', 'chat:random'];
// The application backend's sign-in page (examples/backend/ by default).
// Its redirect back here names it (?backend=) with ?signin=cookie: connect
// with the page's cookies, and let the backend name the user.
const DEFAULT_BACKEND = 'http://127.0.0.1:8001/';
const query = new URLSearchParams(location.search);

let client = null;
let current = null;             // the room shown
const messages = new Map();     // room -> [{key, from, text, pending}]
const early = new Map();        // room whose history is in flight -> publications seen meanwhile
let nonce = 0;
let liveCount = 0;              // keys for publications outside the stream

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function textOf(data) {
  if (data && typeof data === 'object' && typeof data.text === 'string') return data.text;
  if (data && typeof data === 'object' && typeof data.rename === 'string') return `renamed the room to ${data.rename}`;
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function renderRooms() {
  const ul = $('room-list');
  ul.replaceChildren();
  for (const r of client.rooms) {
    const li = el('li');
    li.dataset.room = r.room;
    if (r.room === current) li.classList.add('selected');
    li.append(el('span', 'room-name', r.name));
    if (r.unread > 0 && r.room !== current) {
      li.append(el('span', r.mentions > 0 ? 'unread mention' : 'unread', String(r.unread)));
    } else {
      li.append(el('span'));
    }
    // Local echo: a message of ours the server has not confirmed yet shows
    // in the list before the server's entry can know about it.
    const pending = (messages.get(r.room) || []).filter((m) => m.pending).pop();
    if (pending) {
      li.append(el('span', 'preview pending', `${pending.from}: ${pending.text} (sending)`));
    } else {
      li.append(el('span', 'preview', r.preview ? `${r.sender}: ${r.preview}` : 'no messages yet'));
    }
    li.addEventListener('click', () => openRoom(r.room, r.name));
    ul.append(li);
  }
}

function renderMessages() {
  const ol = $('messages');
  ol.replaceChildren();
  for (const m of messages.get(current) || []) {
    const li = el('li', m.pending ? 'pending' : '');
    li.append(el('span', 'from', m.from), el('span', 'text', m.text));
    if (m.moderation) {
      // Masked words arrive as '*' already; the badge says moderation acted.
      const what = m.moderation.masked > 0 ? 'masked' : 'flagged';
      const badge = el('span', `moderation ${what}`, what);
      if (m.moderation.categories.length) badge.title = m.moderation.categories.join(', ');
      li.append(badge);
    }
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

async function openRoom(room, name) {
  current = room;
  $('room-title').textContent = name || room;
  $('text').disabled = false;
  $('send').querySelector('button').disabled = false;
  if (!messages.has(room)) {
    // Publications that arrive while the history is in flight are kept, not
    // dropped: the server batches its history reply with whatever is queued
    // after it into one frame, and this function resumes only after the
    // client has read the whole frame, so a publication made after the
    // history was read can reach onPublication before the list exists.
    if (!early.has(room)) early.set(room, []);
    let h;
    try {
      h = await client.history(room, { limit: 50 });
    } catch (err) {
      early.delete(room);
      // Lost with the connection: loaded again once reconnected.
      $('notice').textContent = `history of ${room} not loaded: ${err.message}`;
      return;
    }
    const arrived = early.get(room) || [];
    early.delete(room);
    if (!messages.has(room)) {
      const list = h.publications.map(entryOf);
      const shown = new Set(list.map((m) => m.key));
      for (const p of arrived) {
        const m = entryOf(p);
        if (!shown.has(m.key)) list.push(m);
      }
      messages.set(room, list);
    }
  }
  renderMessages();
  renderRooms();
  client.readMarker(room).catch(() => {});
}

// A publication as the chat shows it.
// One outside the room's stream (no offset) is shown but never comes back
// from history.
function entryOf(p) {
  return { key: p.offset === undefined ? `live:${++liveCount}` : `${p.epoch}:${p.offset}`, from: p.info ? p.info.user : 'server', text: textOf(p.data), moderation: p.moderation };
}

function onPublication(p) {
  const list = messages.get(p.room);
  if (!list) {
    // Not loaded: history() brings it when the room is opened, or, if its
    // history is in flight, openRoom() adds it after the history.
    early.get(p.room)?.push(p);
    return;
  }
  // Our own message coming back: the local echo leaves its provisional
  // place and takes the server's (after whatever the server ordered first,
  // e.g. messages recovered after a reconnect).
  const mine = p.data && p.data.nonce ? list.findIndex((m) => m.nonce === p.data.nonce) : -1;
  if (mine >= 0) list.splice(mine, 1);
  list.push(entryOf(p));
  if (mine >= 0) renderRooms();
  if (p.room === current) {
    renderMessages();
    client.readMarker(p.room).catch(() => {});
  }
}

async function send(text) {
  const room = current;
  const n = `${client.user}-${Date.now()}-${++nonce}`;
  if (!messages.has(room)) messages.set(room, []);
  const list = messages.get(room);
  list.push({ key: n, nonce: n, from: client.user, text, pending: true });
  renderMessages();
  renderRooms();
  try {
    await client.publish(room, { text, nonce: n });
  } catch (err) {
    // Refused (e.g. moderation rejected it): the local echo goes.
    const i = list.findIndex((m) => m.nonce === n);
    if (i >= 0) list.splice(i, 1);
    if (room === current) renderMessages();
    renderRooms();
    $('notice').textContent = `not sent: ${err.message}`;
  }
}

function watch() {
  const name = $('filter').value.trim();
  client.watchRooms({ page_size: 20, filter: name ? { name } : {} }).catch(() => {});
}

// The backend's address from the query, if it is an http(s) URL.
function backendUrl() {
  try {
    const u = new URL(query.get('backend') || DEFAULT_BACKEND);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
  } catch { /* not a URL */ }
  return DEFAULT_BACKEND;
}

// Back to the sign-in form, saying why (the connect was refused).
function refused(code, message) {
  client.close();
  $('signin-error').textContent = `Not signed in: ${message} (error ${code}).`;
  $('signin-error').hidden = false;
  $('app').hidden = true;
  $('signin').hidden = false;
}

// `credentials`: {user} (dev mode) or {} (the server's connect hook names
// the user, from the cookie).
function start(credentials) {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  client = new HeraldClient(`${proto}://${location.host}/ws`, credentials);
  window.heraldApp = { client, openRoom };
  $('me').textContent = credentials.user || '';
  client.addEventListener('state', (e) => {
    const s = $('status');
    s.dataset.state = e.detail.state;
    s.textContent = e.detail.state;
    if (e.detail.state === 'connected') $('me').textContent = client.user;
    if (e.detail.state === 'connected' && current && !messages.has(current)) openRoom(current);
  });
  client.addEventListener('connecterror', (e) => {
    const { code, message } = e.detail;
    if (code === 116) $('notice').textContent = `not connected: ${message}`; // retried
    else refused(code, message);
  });
  client.addEventListener('rooms', renderRooms);
  client.addEventListener('publication', (e) => onPublication(e.detail));
  client.addEventListener('recovery', async (e) => {
    const { room, recovered, missed } = e.detail;
    if (recovered) {
      $('notice').textContent = `reconnected: ${missed} missed message${missed === 1 ? '' : 's'} recovered in ${room}`;
    } else {
      $('notice').textContent = `reconnected: ${room} could not be recovered, reloaded`;
      messages.delete(room);
      if (room === current) await openRoom(room);
    }
  });
  client.start();
  // Rooms the server subscribes at connect (the backend's) are answered
  // from the connect reply, not subscribed twice (herald.js).
  for (const r of DEFAULT_ROOMS) client.subscribe(r).catch(() => {});
  watch();
  $('signin-error').hidden = true;
  $('signin').hidden = true;
  $('app').hidden = false;
}

$('app-signin').href = backendUrl();
$('signin').addEventListener('submit', (e) => {
  e.preventDefault();
  start({ user: $('name').value.trim() });
});
if (query.get('signin') === 'cookie') start({});
$('send').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('text').value.trim();
  if (!text || !current) return;
  $('text').value = '';
  send(text);
});
$('join').addEventListener('submit', async (e) => {
  e.preventDefault();
  const room = $('join-room').value.trim();
  if (!room) return;
  $('join-room').value = '';
  try {
    await client.subscribe(room);
    await openRoom(room);
  } catch (err) {
    $('notice').textContent = `cannot join ${room}: ${err.message}`;
  }
});
let filterTimer = null;
$('filter').addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(watch, 150);
});
$('more').addEventListener('click', () => client.morePages().catch(() => {}));
