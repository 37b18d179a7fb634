// heraldd as a child process for the JavaScript tests (tests/node,
// tests/browser): started on a kernel-chosen loopback port; resolves with
// {proc, port} once its "listening" log line names the port. stopHeraldd()
// ends it as an operator would, and fails the test unless it exits 0
// without a sanitizer report.
import { spawnTied } from './tied_child.mjs';
import { once } from 'node:events';

export function startHeraldd(binary = process.env.HERALDD, flags = []) {
  return new Promise((resolve, reject) => {
    const proc = spawnTied(binary, ['--server.listen', '127.0.0.1:0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`heraldd did not start:\n${out}`)), 20000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/listening addr=127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.output = () => out;
    proc.on('exit', (code) => reject(new Error(`heraldd exited with ${code}:\n${out}`)));
  });
}

const SANITIZER_REPORTS = ['WARNING: ThreadSanitizer:', 'ERROR: AddressSanitizer:',
  'ERROR: LeakSanitizer:', ': runtime error: '];

// SIGTERM, then waits (30 s at most, then SIGKILL) for the exit; throws
// unless heraldd exited 0 and printed no sanitizer report. A process that
// already exited is checked the same way.
export async function stopHeraldd(proc) {
  if (proc.exitCode === null && proc.signalCode === null) {
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30000);
    await exited;
    clearTimeout(timer);
  }
  const out = proc.output ? proc.output() : '';
  const report = SANITIZER_REPORTS.find((r) => out.includes(r));
  if (report) throw new Error(`heraldd reported '${report}':\n${out}`);
  if (proc.exitCode !== 0) {
    throw new Error(`heraldd exited with ${proc.exitCode ?? proc.signalCode} on SIGTERM:\n${out}`);
  }
}

// POSTs `body` to heraldd's server API (/api/<endpoint>, dev mode: no key)
// and returns the reply's result; throws unless heraldd answered 200.
export async function serverApi(port, endpoint, body) {
  const r = await fetch(`http://127.0.0.1:${port}/api/${endpoint}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`/api/${endpoint} answered ${r.status}: ${text}`);
  return JSON.parse(text).result;
}
