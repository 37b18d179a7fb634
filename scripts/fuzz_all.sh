#!/usr/bin/env bash
# Runs every libFuzzer target of a build for a fixed time each, two at
# a time (one per core), after replaying its whole corpus and saved crashes
# under ASan and UBSan (libFuzzer reads every input it is given before it
# mutates). Fails, naming the target and showing its report, if any target
# crashes, leaks, trips a sanitizer or an assertion of the target itself.
#
#   scripts/fuzz_all.sh BUILD_DIR SECONDS
#
# New interesting inputs go to BUILD_DIR/corpus/<name>/ (the checked-in
# corpus is only read); a crash leaves BUILD_DIR/crashes/<name>-crash-<sha>:
# copy it into fuzz/crashes/<name>/, fix the bug, and ctest replays it.
set -euo pipefail
build=${1:?build directory}
seconds=${2:?seconds per target}
root=$(cd "$(dirname "$0")/.." && pwd)
logs=$build/fuzz-logs
mkdir -p "$logs" "$build/crashes"

run_one() {
  local name=$1
  local bin=$build/fuzz/fuzz_$name
  mkdir -p "$build/corpus/$name"
  # libFuzzer refuses a corpus directory that does not exist, and most
  # targets have no saved crash.
  local dirs=("$build/corpus/$name" "$root/fuzz/corpus/$name")
  [[ -d $root/fuzz/crashes/$name ]] && dirs+=("$root/fuzz/crashes/$name")
  # -rss_limit_mb and -timeout: a target that needs over 2 GB or hangs on
  # one input for 10 s is a finding, not a slow machine.
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/crashes/$name-" \
      "${dirs[@]}" \
      >"$logs/$name.log" 2>&1; then
    echo "fuzz $name: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$name.log" | grep -o '[0-9]*$') runs in ${seconds} s)"
  else
    echo "fuzz $name: FAILED; its output:"
    tail -n 60 "$logs/$name.log"
    return 1
  fi
}

names=()
for dir in "$root"/fuzz/corpus/*/; do
  name=$(basename "$dir")
  if [[ ! -x $build/fuzz/fuzz_$name ]]; then
    echo "fuzz $name: no binary at $build/fuzz/fuzz_$name (build the fuzzers target)" >&2
    exit 2
  fi
  names+=("$name")
done

failed=0
pids=()
for name in "${names[@]}"; do
  run_one "$name" &
  pids+=($!)
  if (( ${#pids[@]} == 2 )); then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if (( failed )); then
  echo "fuzzing found a failure (see above)" >&2
  exit 1
fi
echo "all ${#names[@]} fuzz targets ran ${seconds} s each with no failure"
