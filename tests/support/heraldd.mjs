// heraldd as a child process for the JavaScript tests (tests/node,
// tests/browser): started on a kernel-chosen loopback port; resolves with
// {proc, port} once its "listening" log line names the port.
import { spawn } from 'node:child_process';

export function startHeraldd(binary = process.env.HERALDD, flags = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(binary, ['--server.listen', '127.0.0.1:0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    proc.on('exit', (code) => reject(new Error(`heraldd exited with ${code}:\n${out}`)));
  });
}
