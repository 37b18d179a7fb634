// spawn(), but the child dies with the test: a Node test that ctest kills on
// a timeout (SIGKILL, no 'exit' handler runs) must not leave heraldd or a
// backend behind holding ports. Node cannot set PR_SET_PDEATHSIG itself, so
// the child is started through util-linux's setpriv, which sets it (SIGKILL)
// and then execs the command in the same process: the pid, stdio and exit
// status are the command's own. (The C++ tests get the same from
// herald::process::Child.)
import { spawn } from 'node:child_process';

export function spawnTied(command, args, options) {
  return spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...args], options);
}
