// Polls `fn` until it returns something truthy, which it returns; fails
// the test after `timeoutMs`, naming `what` and the last value seen. The
// bound only limits a failure (a loaded machine runs these tests beside
// others): no test asserts how long anything took.
import assert from 'node:assert/strict';

export async function waitFor(what, fn, timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}
