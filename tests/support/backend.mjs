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
    switch (body.method) {
      case 'echo': return json({ result: { data: body.data } });
      case 'whoami': return json({ result: { data: { user: body.user, client: body.client } } });
      case 'rewrite': return json({ result: { data: { rewritten: body.data } } });
      case 'error': return json({ error: { code: 1001, message: 'not allowed' } });
      case 'low_code': return json({ error: { code: 101, message: 'a code Herald owns' } });
      case 'disconnect': return json({ disconnect: { code: 4501, reason: 'banned' } });
      case 'stall': return undefined;
      case 'status500':
        res.statusCode = 500;
        return res.end('{"error":"boom"}');
      case 'invalid':
        res.setHeader('Content-Type', 'application/json');
        return res.end('{"result": not json');
      case 'hangup': return req.socket.destroy();
      case 'die': return process.exit(3);
      default: return json({ error: { code: 1404, message: `no method ${body.method}` } });
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`backend listening port=${server.address().port}`);
});
