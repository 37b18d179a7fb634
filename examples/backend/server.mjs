// An example application backend for heraldd (docs/backend.md, "The example
// backend"): a small application with cookie sessions, and the hooks heraldd
// calls. Node built-ins only:
//
//   node examples/backend/server.mjs [--port 8001] [--webapp http://127.0.0.1:8080/]
//   (or HERALD_BACKEND_PORT, HERALD_WEBAPP_URL; --port 0: a kernel-chosen port)
//
// For the browser:
//   GET  /         the sign-in form (or, signed in: who you are, sign out)
//   POST /login    name=<user>: opens a session (HttpOnly cookie) and
//                  redirects to the web app with ?signin=cookie
//   POST /logout   closes the session
// For heraldd (JSON in, JSON out; a body that is not a JSON object: HTTP 400):
//   POST /connect, /subscribe, /publish, /rpc   see hooks.mjs
//
// It listens on 127.0.0.1 only: the hooks trust whoever calls them, so only
// this machine's heraldd may. Prints "example backend listening on <url>".
import http from 'node:http';
import { parseArgs } from 'node:util';
import { Sessions, sessionIdOf, setCookie, clearCookie } from './sessions.mjs';
import { makeHooks } from './hooks.mjs';
import { signInPage, signedInPage } from './pages.mjs';

const { values: flags } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.HERALD_BACKEND_PORT ?? '8001' },
    webapp: { type: 'string', default: process.env.HERALD_WEBAPP_URL ?? 'http://127.0.0.1:8080/' },
  },
});
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: not a port: ${flags.port}`);
  process.exit(2);
}
const webapp = new URL(flags.webapp);

const MAX_BODY = 64 * 1024;
const sessions = new Sessions();
const hooks = makeHooks(sessions);

function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}
const html = (res, body, status = 200) => send(res, status, 'text/html; charset=utf-8', body);
const json = (res, value) => send(res, 200, 'application/json', JSON.stringify(value));
const redirect = (res, location, headers = {}) =>
  send(res, 303, 'text/plain', `see ${location}`, { Location: location, ...headers });

// The web app's address with the flag that makes it connect by cookie, and
// this backend's address, so the web app can link back here.
function chatUrl() {
  const u = new URL(webapp);
  u.searchParams.set('signin', 'cookie');
  u.searchParams.set('backend', `http://127.0.0.1:${server.address().port}/`);
  return u.href;
}

// The whole body as text, or null when it is over MAX_BODY.
function readBody(req) {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      text += chunk;
      if (text.length > MAX_BODY) {
        resolve(null);
        req.destroy();
      }
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

// A user name: what heraldd accepts (1..64 bytes), no control characters.
function validName(name) {
  const bytes = Buffer.byteLength(name);
  return bytes >= 1 && bytes <= 64 && !/\p{Cc}/u.test(name);
}

async function handle(req, res) {
  const path = new URL(req.url, 'http://x').pathname;
  if (req.method === 'GET' && path === '/') {
    const user = sessions.userOf(req.headers.cookie);
    return html(res, user === undefined ? signInPage() : signedInPage(user, chatUrl()));
  }
  if (req.method !== 'POST') return send(res, 404, 'text/plain', 'not found');
  const text = await readBody(req);
  if (text === null) return send(res, 413, 'text/plain', 'body too large');

  if (path === '/login') {
    const name = (new URLSearchParams(text).get('name') ?? '').trim();
    if (!validName(name)) return html(res, signInPage('A name is 1 to 64 bytes, no control characters.'), 400);
    const old = sessionIdOf(req.headers.cookie);
    if (old !== undefined) sessions.close(old);
    return redirect(res, chatUrl(), { 'Set-Cookie': setCookie(sessions.open(name)) });
  }
  if (path === '/logout') {
    const id = sessionIdOf(req.headers.cookie);
    if (id !== undefined) sessions.close(id);
    return redirect(res, '/', { 'Set-Cookie': clearCookie() });
  }

  const hook = { '/connect': hooks.connect, '/subscribe': hooks.subscribe,
    '/publish': hooks.publish, '/rpc': hooks.rpc }[path];
  if (!hook) return send(res, 404, 'text/plain', 'not found');
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return send(res, 400, 'text/plain', 'the body is not JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return send(res, 400, 'text/plain', 'the body is not a JSON object');
  }
  const answer = hook(body);
  const what = [path, `user=${body.user ?? answer.result?.user ?? '-'}`];
  if (body.room !== undefined) what.push(`room=${body.room}`);
  if (body.method !== undefined) what.push(`method=${body.method}`);
  console.log(`${what.join(' ')} -> ${Object.keys(answer)[0]}`);
  return json(res, answer);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, 'text/plain', 'internal error');
  });
});
server.listen(port, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  console.log(`example backend listening on ${url} (sign in there; the web app is ${webapp.href})`);
  console.log(`run heraldd with: --proxy.connect_url ${url}connect --proxy.rpc_url ${url}rpc`);
});
