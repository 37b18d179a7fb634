// An application backend for the proxy tests (tests/gateway/proxy_test.cpp):
// a real HTTP/1.1 server (node:http, keep-alive on) that heraldd POSTs its
// hooks to. Prints "backend listening port=N" once it listens on a
// kernel-chosen loopback port.
//
// POST /rpc answers by the rpc method, so one backend plays every part:
//   echo        {"result":{"data":<data>}}
//   whoami      {"result":{"data":{"user","client"}}}   what heraldd sent
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
//                             "data":{"welcome":<user>}, "rooms":data.rooms?,
//                             "expire_at":data.expire_at?}}
//   no session cookie        {"error":{"code":1401,"message":"sign in first"}}
//   data.mode "echo"         {"result":{"user":"echo","data":<the request heraldd sent>}}
//   data.mode "disconnect"   {"disconnect":{"code":4403,"reason":"banned"}}
//   data.mode "no_user"      {"result":{}}                       a bad answer
//   data.mode "bad_room"     {"result":{"user":"x","rooms":["a b"]}}  a bad answer
//   data.mode stall|status500|invalid|hangup|die  as for rpc
// GET /stats answers {"connections":N,"requests":M}: the TCP connections
// that carried a hook request (a /stats connection is not one) and the
// requests received, so a test can count keep-alive reuse.
import http from 'node:http';

let connections = 0;
let requests = 0;

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ connections, requests }));
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
    switch (body.method) {
      case 'echo': return json({ result: { data: body.data } });
      case 'whoami': return json({ result: { data: { user: body.user, client: body.client } } });
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
  const result = { user, info: { via: 'cookie' }, data: { welcome: user } };
  if (data.rooms) result.rooms = data.rooms;
  if (data.expire_at) result.expire_at = data.expire_at;
  return json({ result });
}
server.listen(0, '127.0.0.1', () => {
  console.log(`backend listening port=${server.address().port}`);
});
