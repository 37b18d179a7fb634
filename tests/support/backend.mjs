// An application backend for the proxy tests (tests/gateway/proxy_test.cpp):
// a real HTTP/1.1 server (node:http, keep-alive on) that heraldd POSTs its
// hooks to. Prints "backend listening port=N" once it listens on a
// kernel-chosen loopback port.
//
// POST /rpc answers by the rpc method, so one backend plays every part:
//   echo        {"result":{"data":<data>}}
//   whoami      {"result":{"data":{"user","client"}}}   what heraldd sent
//   request     {"result":{"data":<the request heraldd sent>}}
//   rewrite     {"result":{"data":{"rewritten":<data>}}}
//   error       {"error":{"code":1001,"message":"not allowed"}}
//   low_code    {"error":{"code":101,...}}              a code Herald owns
//   disconnect  {"disconnect":{"code":4501,"reason":"banned"}}
//   stall       never answers (until the connection closes)
//   status500   HTTP 500
//   invalid     HTTP 200 with a body that is not JSON
//   hangup      closes the connection without answering
//   die         exits the process without answering
//
// POST /connect decides as an application with cookie sessions would:
//   Cookie "session=<user>"  {"result":{"user":<user>,"info":{"via":"cookie"},
//                             "data":{"welcome":<user>}, "meta":{"session":<user>},
//                             "rooms":data.rooms?,
//                             "expire_at":data.expire_at?}}
//   no session cookie        {"error":{"code":1401,"message":"sign in first"}}
//   data.mode "echo"         {"result":{"user":"echo","data":<the request heraldd sent>}}
//   data.mode "disconnect"   {"disconnect":{"code":4403,"reason":"banned"}}
//   data.mode "no_user"      {"result":{}}                       a bad answer
//   data.mode "bad_room"     {"result":{"user":"x","rooms":["a b"]}}  a bad answer
//   data.mode stall|status500|invalid|hangup|die  as for rpc
//
// POST /subscribe decides by the room's namespace:
//   chat:<x>     {"result":{"info":{"role":"member"},"data":{"topic":"about <x>"}}}
//   staff:<x>    {"error":{"code":1403,"message":"staff only"}} unless the user is "admin"
//   open:<x>     {"result":{}}
//   data.mode "disconnect" | "bad_info" ({"result":{"info":[1]}}) | a failure name
// POST /publish (the data's "text" decides):
//   "/shrug"        {"result":{"data":{"text":"¯\\_(ツ)_/¯"}}}   rewritten
//   "/say <words>"  {"result":{"data":{"text":"<words>"}}}   rewritten
//   "/live <words>" {"result":{"data":{"text":"<words>"},"skip_history":true}}
//                                                            outside the stream
//   "/live_bad"     {"result":{"skip_history":"yes"}}        a bad answer
//   "/big"          {"result":{"data":"<100,000 x's>"}}      over max_publication_bytes
//   "/slow <ms> <words>"  {"result":{"data":{"text":"<words>"}}} after <ms>
//   "/bad"          {"result":{"data":1,"extra":}}           not JSON
//   containing "spam"  {"error":{"code":1409,"message":"no spam"}}
//   "/kick"         {"disconnect":{"code":4501,"reason":"kicked"}}
//   "/<failure>"    as for rpc (stall, status500, hangup, ...)
//   anything else   {"result":{}}                            kept as sent
//
// POST /refresh decides by the user's name (its prefix):
//   renew...   {"result":{"expire_at":<now + 2>}} (whole seconds: +1 could be
//              past already when a loaded machine delivers the answer)
//   expire...  {"result":{"expired":true}}
//   refuse...  {"error":{"code":1401,"message":"signed out"}}
//   kick...    {"disconnect":{"code":4409,"reason":"session revoked"}}
//   flaky...   HTTP 500 the first time, then {"result":{"expire_at":253402300799}}
// and checks the session cookie is there (else an error).
// GET /stats answers {"connections":N,"requests":M,"refreshes":{user:n}}: the
// TCP connections that carried a hook request (a /stats connection is not
// one), the requests received, so a test can count keep-alive reuse, and
// the refresh requests per user.
import http from 'node:http';

let connections = 0;
let requests = 0;
const refreshes = {};

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ connections, requests, refreshes }));
    return;
  }
  requests += 1;
  if (!req.socket.carriedHook) {
    req.socket.carriedHook = true;
    connections += 1;
  }
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => { text += chunk; });
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      res.statusCode = 400;
      res.end('request body is not JSON');
      return;
    }
    const json = (value) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(value));
    };
    if (req.url === '/connect') return connect(req, res, body, json);
    if (req.url === '/refresh') return refresh(res, body, json);
    if (req.url === '/subscribe') return subscribe(req, res, body, json);
    if (req.url === '/publish') return publish(req, res, body, json);
    switch (body.method) {
      case 'echo': return json({ result: { data: body.data } });
      case 'whoami': return json({ result: { data: { user: body.user, client: body.client } } });
      case 'request': return json({ result: { data: body } });
      case 'rewrite': return json({ result: { data: { rewritten: body.data } } });
      case 'error': return json({ error: { code: 1001, message: 'not allowed' } });
      case 'low_code': return json({ error: { code: 101, message: 'a code Herald owns' } });
      case 'disconnect': return json({ disconnect: { code: 4501, reason: 'banned' } });
      default:
        if (failures[body.method]) return failures[body.method](req, res);
        return json({ error: { code: 1404, message: `no method ${body.method}` } });
    }
  });
});

// The ways a backend fails, provoked by name from either hook.
const failures = {
  stall: () => undefined,
  status500: (req, res) => {
    res.statusCode = 500;
    res.end('{"error":"boom"}');
  },
  invalid: (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end('{"result": not json');
  },
  hangup: (req) => req.socket.destroy(),
  die: () => process.exit(3),
};

function connect(req, res, body, json) {
  const data = body.data ?? {};
  switch (data.mode) {
    case 'echo': return json({ result: { user: 'echo', data: body } });
    case 'disconnect': return json({ disconnect: { code: 4403, reason: 'banned' } });
    case 'no_user': return json({ result: {} });
    case 'bad_room': return json({ result: { user: 'x', rooms: ['a b'] } });
    default:
      if (failures[data.mode]) return failures[data.mode](req, res);
  }
  const cookie = (body.headers?.cookie ?? '').split(/;\s*/).find((c) => c.startsWith('session='));
  if (!cookie) return json({ error: { code: 1401, message: 'sign in first' } });
  const user = cookie.slice('session='.length);
  const result = { user, info: { via: 'cookie' }, data: { welcome: user }, meta: { session: user } };
  if (data.rooms) result.rooms = data.rooms;
  if (data.expire_at) result.expire_at = data.expire_at;
  return json({ result });
}
function subscribe(req, res, body, json) {
  const mode = body.data?.mode;
  if (mode === 'disconnect') return json({ disconnect: { code: 4403, reason: 'not here' } });
  if (mode === 'bad_info') return json({ result: { info: [1] } });
  if (failures[mode]) return failures[mode](req, res);
  const [ns, name] = body.room.split(':');
  if (ns === 'chat') {
    return json({ result: { info: { role: 'member' }, data: { topic: `about ${name}` } } });
  }
  if (ns === 'staff' && body.user !== 'admin') {
    return json({ error: { code: 1403, message: 'staff only' } });
  }
  return json({ result: {} });
}

function publish(req, res, body, json) {
  const text = typeof body.data?.text === 'string' ? body.data.text : '';
  if (text === '/shrug') return json({ result: { data: { text: '¯\\_(ツ)_/¯' } } });
  if (text.startsWith('/say ')) return json({ result: { data: { text: text.slice(5) } } });
  if (text.startsWith('/live ')) {
    return json({ result: { data: { text: text.slice(6) }, skip_history: true } });
  }
  if (text === '/live_bad') return json({ result: { skip_history: 'yes' } });
  if (text === '/big') return json({ result: { data: 'x'.repeat(100000) } });
  const slow = /^\/slow (\d+) (.*)$/.exec(text);
  if (slow) {
    setTimeout(() => json({ result: { data: { text: slow[2] } } }), Number(slow[1]));
    return;
  }
  if (text === '/bad') {
    res.setHeader('Content-Type', 'application/json');
    return res.end('{"result":{"data":1,"extra":}}');
  }
  if (text.includes('spam')) return json({ error: { code: 1409, message: 'no spam' } });
  if (text === '/kick') return json({ disconnect: { code: 4501, reason: 'kicked' } });
  if (failures[text.slice(1)]) return failures[text.slice(1)](req, res);
  return json({ result: {} });
}

function refresh(res, body, json) {
  const user = body.user;
  refreshes[user] = (refreshes[user] ?? 0) + 1;
  if (!(body.headers?.cookie ?? '').includes(`session=${user}`)) {
    return json({ error: { code: 1401, message: 'no session cookie in the refresh' } });
  }
  const now = Math.floor(Date.now() / 1000);
  if (user.startsWith('renew')) return json({ result: { expire_at: now + 2 } });
  if (user.startsWith('expire')) return json({ result: { expired: true } });
  if (user.startsWith('refuse')) return json({ error: { code: 1401, message: 'signed out' } });
  if (user.startsWith('kick')) {
    return json({ disconnect: { code: 4409, reason: 'session revoked' } });
  }
  if (user.startsWith('flaky') && refreshes[user] === 1) {
    res.statusCode = 500;
    return res.end('{}');
  }
  return json({ result: { expire_at: 253402300799 } });
}

server.listen(0, '127.0.0.1', () => {
  console.log(`backend listening port=${server.address().port}`);
});
