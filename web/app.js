// The demo web app: sign in with a name, a live room list (rooms.watch),
// a chat view with history and local echo, and a visible reconnect and
// recovery indicator. Everything protocol-related is in herald.js.
import { HeraldClient } from '/herald.js';

const $ = (id) => document.getElementById(id);
const DEFAULT_ROOMS = ['chat:lobby', 'chat:random'];

let client = null;
let current = null;             // the room shown
const messages = new Map();     // room -> [{key, from, text, pending}]
let nonce = 0;

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
    li.append(el('span', 'preview', r.preview ? `${r.sender}: ${r.preview}` : 'no messages yet'));
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
    const h = await client.history(room, { limit: 50 });
    messages.set(room, h.publications.map((p) => ({ key: `${p.epoch}:${p.offset}`, from: p.info ? p.info.user : 'server', text: textOf(p.data) })));
  }
  renderMessages();
  renderRooms();
  client.readMarker(room).catch(() => {});
}

function onPublication(p) {
  const list = messages.get(p.room);
  if (!list) return; // not loaded yet: history() brings it when opened
  const mine = p.data && p.data.nonce && list.find((m) => m.nonce === p.data.nonce);
  if (mine) {
    mine.pending = false;
    mine.key = `${p.epoch}:${p.offset}`;
  } else {
    list.push({ key: `${p.epoch}:${p.offset}`, from: p.info ? p.info.user : 'server', text: textOf(p.data) });
  }
  if (p.room === current) {
    renderMessages();
    client.readMarker(p.room).catch(() => {});
  }
}

async function send(text) {
  const room = current;
  const n = `${client.user}-${Date.now()}-${++nonce}`;
  const list = messages.get(room);
  list.push({ key: n, nonce: n, from: client.user, text, pending: true });
  renderMessages();
  try {
    await client.publish(room, { text, nonce: n });
  } catch (err) {
    $('notice').textContent = `not sent: ${err.message}`;
  }
}

function watch() {
  const name = $('filter').value.trim();
  client.watchRooms({ page_size: 20, filter: name ? { name } : {} }).catch(() => {});
}

function start(user) {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  client = new HeraldClient(`${proto}://${location.host}/ws`, { user });
  window.heraldApp = { client, openRoom };
  $('me').textContent = user;
  client.addEventListener('state', (e) => {
    const s = $('status');
    s.dataset.state = e.detail.state;
    s.textContent = e.detail.state;
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
  for (const r of DEFAULT_ROOMS) client.subscribe(r).catch(() => {});
  watch();
  $('signin').hidden = true;
  $('app').hidden = false;
}

$('signin').addEventListener('submit', (e) => {
  e.preventDefault();
  start($('name').value.trim());
});
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
