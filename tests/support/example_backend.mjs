// The example application backend (examples/backend/server.mjs) as a child
// process for the JavaScript tests: started on a kernel-chosen loopback
// port; resolves with {proc, port, url} once it prints where it listens.
import { spawnTied } from './tied_child.mjs';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../../examples/backend/server.mjs', import.meta.url));

export function startExampleBackend(webapp) {
  return new Promise((resolve, reject) => {
    const proc = spawnTied(process.execPath, [SERVER, '--port', '0', '--webapp', webapp],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the example backend did not start:\n${out}`)), 20000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        clearTimeout(timer);
        const port = Number(m[1]);
        resolve({ proc, port, url: `http://127.0.0.1:${port}/` });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`the example backend exited with ${code}:\n${out}`)));
  });
}
