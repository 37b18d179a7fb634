// The application backend of the proxy benchmark (proxy_cost.mjs): the
// least an application can do per hook, so that what is measured is
// heraldd's side of a hook (the HTTP request, the wait, the answer) plus a
// realistic minimum of backend work, not an application's logic. Node's
// http, keep-alive on, loopback only. Prints "backend listening port=N".
//   POST /publish  {"result":{}}               (accepted as sent)
//   POST /connect  {"result":{"user":<cookie>}} (the session cookie names the user)
import http from 'node:http';

const server = http.createServer((req, res) => {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { text += c; });
  req.on('end', () => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/connect') {
      const body = JSON.parse(text);
      const m = /session=([^;]+)/.exec(body.headers?.cookie ?? '');
      if (!m) return res.end('{"error":{"code":1401,"message":"sign in first"}}');
      return res.end(JSON.stringify({ result: { user: m[1] } }));
    }
    JSON.parse(text); // an application reads what it is shown
    return res.end('{"result":{}}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`backend listening port=${server.address().port}`));
