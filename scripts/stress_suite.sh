#!/usr/bin/env bash
# Runs one ctest preset RUNS times while a busy loop burns every core, and
# writes one line per run to LOG: the run, pass/fail, tests passed of total,
# wall time, load average, and the names of the tests that failed.
#
#   scripts/stress_suite.sh PRESET RUNS LOG [extra ctest arguments]
#
# Why: a test that waits for a time instead of a state passes on an idle
# machine and fails on a busy one (CI shares its cores). The burners run at
# the same priority as the tests, so every process of the suite gets about
# a third of a core; a test that still passes here waits for what it checks.
# Each run's full ctest output is kept beside LOG (LOG.<run>.out) so a failure
# can be read afterwards. The burners stop when the script does, however it
# stops.
set -euo pipefail
preset=${1:?preset (release, asan, tsan)}
runs=${2:?number of runs}
log=${3:?log file}
shift 3
cd "$(dirname "$0")/.."

burners=()
stop_burners() { ((${#burners[@]})) && kill "${burners[@]}" 2>/dev/null; wait 2>/dev/null || true; }
trap stop_burners EXIT
for _ in $(seq "$(nproc)"); do
  bash -c 'while :; do :; done' &
  burners+=($!)
done

failed_runs=0
for run in $(seq "$runs"); do
  out="$log.$run.out"
  start=$(date +%s)
  status=pass
  ctest --preset "$preset" "$@" >"$out" 2>&1 || status=FAIL
  elapsed=$(($(date +%s) - start))
  summary=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$out" || echo "no summary")
  failed=$(sed -n '/The following tests FAILED/,$p' "$out" | grep -Eo '^[[:space:]]*[0-9]+ - [^ ]+' |
    awk '{print $3}' | paste -sd, - || true)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  line="$(date -u +%FT%TZ) $preset run $run/$runs: $status ($summary) in ${elapsed} s, load $load${failed:+, failed: $failed}"
  echo "$line" | tee -a "$log"
  [[ $status == pass ]] || failed_runs=$((failed_runs + 1))
done
echo "$preset: $((runs - failed_runs)) of $runs runs passed under $(nproc) burners" | tee -a "$log"
((failed_runs == 0))
