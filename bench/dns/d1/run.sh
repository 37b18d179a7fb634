#!/bin/bash
# D1 (docs/benchmarks.md): heraldd and NSD serve the same 20,000 zones (10%
# signed) and answer the same query file (83% with DO) from dnsperf over
# loopback, one after the other in one run, each server on one thread.
# Prints QPS and server CPU µs per query for both, and the ratios.
#
#   bench/dns/d1/run.sh [--zones N] [--seconds S] [--rounds R] [--keep DIR]
#                       [--cpus SERVER,CLIENT | --cpus none] [--nice N]
#
# Fairness: both servers run pinned to the same CPU (every process and
# thread of each: taskset at launch is inherited) and dnsperf to another
# (default 1,0 on a machine with two or more CPUs; "none" pins nothing), and
# the order alternates by round (odd rounds NSD first, even rounds Herald
# first), so neither server always runs in the same slot of the machine's
# background load. Both servers and dnsperf run at the same niceness
# (default -10 as root, else unchanged): on a machine shared with other
# jobs, a server at the default priority got about half of its CPU
# (measured: 40-55% busy while dnsperf waited on it), so the QPS measured
# the other jobs' load more than the server.
#
# Inputs are generated (gen.py, sign.sh) into DIR (default
# build/bench-d1) and reused by later runs with the same --zones.
# Bounded: every server and client runs under `timeout`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
zones=20000 seconds=15 rounds=2 dir="$root/build/bench-d1" cpus="" niceness=""
heraldd="$root/build/release/apps/heraldd/heraldd"
while [ $# -gt 0 ]; do
  case $1 in
    --zones) zones=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) dir=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$cpus" ]; then
  if [ "$(nproc)" -ge 2 ]; then cpus="1,0"; else cpus=none; fi
fi
if [ -z "$niceness" ]; then
  if [ "$(id -u)" -eq 0 ]; then niceness=-10; else niceness=0; fi
fi
server_pin=(nice -n "$niceness") client_pin=(nice -n "$niceness")
if [ "$cpus" != none ]; then
  server_pin+=(taskset -c "${cpus%,*}")
  client_pin+=(taskset -c "${cpus#*,}")
fi
for tool in nsd dnsperf ldns-signzone python3 taskset; do
  command -v "$tool" >/dev/null || { echo "d1: $tool is missing (scripts/setup.sh)" >&2; exit 2; }
done
[ -x "$heraldd" ] || { echo "d1: build heraldd first (cmake --build --preset release)" >&2; exit 2; }

if [ ! -f "$dir/done.$zones" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  echo "d1: generating $zones zones and the query file in $dir" >&2
  python3 "$here/gen.py" "$dir" --zones "$zones"
  echo "d1: signing $((zones / 10)) zones" >&2
  "$here/sign.sh" "$dir" >/dev/null
  touch "$dir/done.$zones"
fi

run_dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$run_dir"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() {  # port
  for _ in $(seq 1 600); do
    if kdig @127.0.0.1 -p "$1" +time=1 +retry=0 d1z00001.bench. SOA 2>/dev/null | grep -q NOERROR; then
      return 0
    fi
    sleep 0.5
  done
  echo "d1: server on port $1 did not come up" >&2; exit 1
}
cpu_ticks() {  # pids...: utime + stime, in clock ticks, summed
  local t=0 p
  for p in "$@"; do t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{ print $12 + $13 }'))); done
  echo "$t"
}

nsd_port=$(free_port)
cat > "$run_dir/nsd.conf" <<CONF
server:
  ip-address: 127.0.0.1@$nsd_port
  port: $nsd_port
  username: ""
  chroot: ""
  database: ""
  server-count: 1
  zonelistfile: "$run_dir/zone.list"
  xfrdfile: "$run_dir/xfrd.state"
  xfrdir: "$run_dir"
  pidfile: "$run_dir/nsd.pid"
  logfile: "$run_dir/nsd.log"
  verbosity: 0
remote-control:
  control-enable: no
CONF
cat "$dir/nsd.zones" >> "$run_dir/nsd.conf"
timeout 3600 "${server_pin[@]}" nsd -d -c "$run_dir/nsd.conf" &
pids+=($!)
herald_port=$(free_port)
timeout 3600 "${server_pin[@]}" "$heraldd" --server.listen 127.0.0.1:0 --server.threads 1 --log.level warn \
  --dns.enabled true --dns.threads 1 --dns.listen "127.0.0.1:$herald_port" \
  --dns.zones_dir "$dir/zones" --dns.discovery_zone "" &
pids+=($!)
wait_ready "$nsd_port"
wait_ready "$herald_port"
# Every process of a server is counted: `timeout` runs each server as its
# child, and NSD runs as xfrd -> main -> server processes.
descendants() {
  local p
  for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done
}
herald_pids=$(descendants "${pids[1]}" | tr '\n' ' ')
nsd_pids=$(descendants "${pids[0]}" | tr '\n' ' ')
hz=$(getconf CLK_TCK)

measure() {  # name port "pids"
  local before after out qps n lost us mix size
  # shellcheck disable=SC2086
  before=$(cpu_ticks $3)
  out=$(timeout $((seconds + 30)) "${client_pin[@]}" dnsperf -B -d "$dir/queries.bin" -s 127.0.0.1 -p "$2" \
        -l "$seconds" -c 8 -q 200 -t 2 2>&1)
  # shellcheck disable=SC2086
  after=$(cpu_ticks $3)
  qps=$(echo "$out" | awk '/Queries per second/ { printf "%.0f", $4 }')
  n=$(echo "$out" | awk '/Queries completed/ { print $3 }')
  lost=$(echo "$out" | awk '/Queries lost/ { print $3 }')
  us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$n" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
  # The answers' RCODE mix ("NOERROR 80.1% NXDOMAIN 19.9%"): the same query
  # file must give the same mix from both servers.
  mix=$(echo "$out" | awk '/Response codes/ { $1 = ""; $2 = ""; gsub(/[(),]/, ""); print }' |
        awk '{ s = ""; for (i = 1; i <= NF; i += 3) s = s $i "=" $(i + 2) " "; print s }')
  size=$(echo "$out" | awk '/Average packet size/ { print $7 }')
  echo "$1 $qps $us $n $lost $size $mix"
}

echo "d1: $zones zones, $(du -h "$dir/queries.bin" | cut -f1) of queries, ${seconds}s per run, $rounds rounds, cpus (server,client) $cpus, nice $niceness" >&2
printf "%-7s %5s %8s %13s %10s %6s %7s  %s\n" server round qps "cpu_us/query" completed lost resp_B rcodes
run_nsd() {
  read -r _ nq nu nd nl ns nm < <(measure nsd "$nsd_port" "$nsd_pids")
  printf "%-7s %5s %8s %13s %10s %6s %7s  %s\n" nsd "$r" "$nq" "$nu" "$nd" "$nl" "$ns" "$nm"
}
run_herald() {
  read -r _ hq hu hd hl hs hm < <(measure herald "$herald_port" "$herald_pids")
  printf "%-7s %5s %8s %13s %10s %6s %7s  %s\n" herald "$r" "$hq" "$hu" "$hd" "$hl" "$hs" "$hm"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then run_nsd; run_herald; else run_herald; run_nsd; fi
  awk -v hq="$hq" -v nq="$nq" -v hu="$hu" -v nu="$nu" \
    'BEGIN { printf "ratio   %5s   herald/nsd qps %.2f   cpu/query %.2f\n", "'"$r"'", hq / nq, hu / nu }'
done
