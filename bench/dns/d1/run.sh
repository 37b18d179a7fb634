#!/bin/bash
# D1 (docs/benchmarks.md): heraldd and NSD serve the same 20,000 zones (10%
# signed) and answer the same query file (83% with DO) from dnsperf over
# loopback, one after the other in one run, each server on one thread.
# Prints QPS and server CPU µs per query for both, and the ratios.
#
#   bench/dns/d1/run.sh [--online] [--zones N] [--seconds S] [--rounds R] [--keep DIR]
#                       [--cpus SERVER,CLIENT | --cpus none] [--nice N]
#
# D1-online (--online): the signed 10% are signed at query time instead
# (RFC 9824 compact denial), and the peer is Knot DNS's mod-onlinesign, as
# NSD signs nothing online. Three servers then: knotd (`udp-workers: 1`,
# `tcp-workers: 1`, `background-workers: 1`; the zone config and KASP from
# knot.sh), heraldd with dns.keys_dir (its default signature cache,
# "herald"), and heraldd with `dns.signature_cache_entries 0` ("herald0":
# every answer signed afresh, as Knot does). Each heraldd also reports, per
# run, its signature cache hit rate (hit / (hit + miss + stale) of RRsets)
# and signatures per second, from its /metrics. The same queries and zone
# data as D1; the inputs live in their own directory (default
# build/bench-d1-online): zones unsigned, keys in DIR/keys (sign.sh
# --online).
#
# Fairness: the servers run pinned to the same CPU (every process and
# thread of each: taskset at launch is inherited) and dnsperf to another
# (default 1,0 on a machine with two or more CPUs; "none" pins nothing), and
# the order alternates by round (odd rounds the peer first, even rounds
# heraldd first; online: knot, herald, herald0, then the reverse), so no
# server always runs in the same slot of the machine's background load. The
# servers and dnsperf run at the same niceness (default -10 as root, else
# unchanged): on a machine shared with other jobs, a server at the default
# priority got about half of its CPU (measured: 40-55% busy while dnsperf
# waited on it), so the QPS measured the other jobs' load more than the
# server.
#
# Inputs are generated (gen.py, sign.sh; online also knot.sh) into DIR
# (default build/bench-d1) and reused by later runs with the same --zones
# (the markers DIR/done.N, DIR/done.online.N and DIR/knot/done).
# Bounded: every server and client runs under `timeout`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
zones=20000 seconds=15 rounds=2 dir="" cpus="" niceness="" online=0
heraldd="$root/build/release/apps/heraldd/heraldd"
while [ $# -gt 0 ]; do
  case $1 in
    --online) online=1; shift ;;
    --zones) zones=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) dir=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$dir" ]; then
  if ((online)); then dir="$root/build/bench-d1-online"; else dir="$root/build/bench-d1"; fi
fi
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
tools=(dnsperf kdig python3 taskset)
if ((online)); then tools+=(knotd knotc keymgr ldns-keygen curl); else tools+=(nsd ldns-signzone); fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "d1: $tool is missing (scripts/setup.sh)" >&2; exit 2; }
done
[ -x "$heraldd" ] || { echo "d1: build heraldd first (cmake --build --preset release)" >&2; exit 2; }

if ((online)); then
  if [ ! -f "$dir/done.online.$zones" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    echo "d1: generating $zones zones and the query file in $dir" >&2
    python3 "$here/gen.py" "$dir" --zones "$zones"
    echo "d1: keys for $((zones / 10)) zones signed online" >&2
    "$here/sign.sh" --online "$dir" >/dev/null
    touch "$dir/done.online.$zones"
  fi
  "$here/knot.sh" "$dir"
elif [ ! -f "$dir/done.$zones" ]; then
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
# Every process of a server is counted: `timeout` runs each server as its
# child, and NSD runs as xfrd -> main -> server processes.
descendants() {
  local p
  for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done
}

declare -A port procs http
start_heraldd() {  # name extra-settings...
  local name=$1
  shift
  port[$name]=$(free_port)
  timeout 3600 "${server_pin[@]}" "$heraldd" --server.listen "127.0.0.1:${http[$name]:-0}" \
    --server.threads 1 --log.level warn \
    --dns.enabled true --dns.threads 1 --dns.listen "127.0.0.1:${port[$name]}" \
    --dns.zones_dir "$dir/zones" --dns.discovery_zone "" "$@" &
  pids+=($!)
  procs[$name]=$!
}

if ((online)); then
  servers=(knot herald herald0)
  port[knot]=$(free_port)
  mkdir -p "$run_dir/knot"
  cat > "$run_dir/knot.conf" <<CONF
server:
  rundir: "$run_dir/knot"
  listen: 127.0.0.1@${port[knot]}
  udp-workers: 1
  tcp-workers: 1
  background-workers: 1
database:
  storage: "$run_dir/knot"
  kasp-db: "$dir/knot/kasp"
log:
  - target: stderr
    any: warning
include: "$dir/knot/zones.conf"
CONF
  timeout 3600 "${server_pin[@]}" knotd -c "$run_dir/knot.conf" &
  pids+=($!)
  procs[knot]=$!
  http[herald]=$(free_port)
  http[herald0]=$(free_port)
  start_heraldd herald --dns.keys_dir "$dir/keys"
  start_heraldd herald0 --dns.keys_dir "$dir/keys" --dns.signature_cache_entries 0
else
  servers=(nsd herald)
  port[nsd]=$(free_port)
  cat > "$run_dir/nsd.conf" <<CONF
server:
  ip-address: 127.0.0.1@${port[nsd]}
  port: ${port[nsd]}
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
  procs[nsd]=$!
  start_heraldd herald
fi
for s in "${servers[@]}"; do wait_ready "${port[$s]}"; done
if ((online)); then
  # knotd answers while it still loads zones (one background worker loads
  # them one by one): wait until every zone has its serial.
  for _ in $(seq 1 1200); do
    loaded=$(knotc -c "$run_dir/knot.conf" zone-status 2>/dev/null | grep -c 'serial: [0-9]' || true)
    [ "$loaded" -eq "$zones" ] && break
    sleep 0.5
  done
  [ "$loaded" -eq "$zones" ] || { echo "d1: knotd loaded $loaded of $zones zones" >&2; exit 1; }
  # Each server signs a zone of signed.list and only those.
  first=$(head -1 "$dir/signed.list") plain=$(printf 'd1z%05d.bench.' $((zones - 1)))
  for s in "${servers[@]}"; do
    kdig @127.0.0.1 -p "${port[$s]}" +dnssec "www.$first" A | grep -q 'RRSIG.*CNAME 13' ||
      { echo "d1: $s does not sign $first" >&2; exit 1; }
    if kdig @127.0.0.1 -p "${port[$s]}" +dnssec "www.$plain" A | grep -q RRSIG; then
      echo "d1: $s signs $plain" >&2; exit 1
    fi
  done
fi
for s in "${servers[@]}"; do procs[$s]=$(descendants "${procs[$s]}" | tr '\n' ' '); done
hz=$(getconf CLK_TCK)

# heraldd's signing counters: "hit miss stale signatures failures".
signing_metrics() {  # http-port
  curl -sf --max-time 5 "http://127.0.0.1:$1/metrics" | awk '
    /^herald_dns_signature_cache_total\{result="hit"\}/ { h = $2 }
    /^herald_dns_signature_cache_total\{result="miss"\}/ { m = $2 }
    /^herald_dns_signature_cache_total\{result="stale"\}/ { s = $2 }
    /^herald_dns_signatures_total / { n = $2 }
    /^herald_dns_signing_failures_total / { f = $2 }
    END { print h + 0, m + 0, s + 0, n + 0, f + 0 }'
}

measure() {  # name port "pids"; prints: qps us completed lost size runtime rcodes...
  local before after out qps n lost us mix size runtime
  # shellcheck disable=SC2086
  before=$(cpu_ticks $3)
  out=$(timeout $((seconds + 30)) "${client_pin[@]}" dnsperf -B -d "$dir/queries.bin" -s 127.0.0.1 -p "$2" \
        -l "$seconds" -c 8 -q 200 -t 2 2>&1)
  # shellcheck disable=SC2086
  after=$(cpu_ticks $3)
  qps=$(echo "$out" | awk '/Queries per second/ { printf "%.0f", $4 }')
  n=$(echo "$out" | awk '/Queries completed/ { print $3 }')
  lost=$(echo "$out" | awk '/Queries lost/ { print $3 }')
  runtime=$(echo "$out" | awk '/Run time \(s\)/ { print $4 }')
  us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$n" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
  # The answers' RCODE mix ("NOERROR 80.1% NXDOMAIN 19.9%"): the same query
  # file must give the same mix from every server.
  mix=$(echo "$out" | awk '/Response codes/ { $1 = ""; $2 = ""; gsub(/[(),]/, ""); print }' |
        awk '{ s = ""; for (i = 1; i <= NF; i += 3) s = s $i "=" $(i + 2) " "; print s }')
  size=$(echo "$out" | awk '/Average packet size/ { print $7 }')
  echo "$qps $us $n $lost $size $runtime $mix"
}

variant=""
if ((online)); then variant=" (the 10% signed online)"; fi
echo "d1: $zones zones$variant, $(du -h "$dir/queries.bin" | cut -f1) of queries, ${seconds}s per run, $rounds rounds, cpus (server,client) $cpus, nice $niceness" >&2
declare -A qps us mix
if ((online)); then
  printf "%-7s %5s %8s %13s %10s %6s %7s %6s %9s  %s\n" server round qps "cpu_us/query" completed lost resp_B \
    "hit%" "sigs/s" rcodes
else
  printf "%-7s %5s %8s %13s %10s %6s %7s  %s\n" server round qps "cpu_us/query" completed lost resp_B rcodes
fi
run_one() {  # server
  local s=$1 q u n l size t m b a hit sigs
  if ((online)) && [ -n "${http[$s]:-}" ]; then b=$(signing_metrics "${http[$s]}"); fi
  read -r q u n l size t m < <(measure "$s" "${port[$s]}" "${procs[$s]}")
  qps[$s]=$q us[$s]=$u mix[$s]=$m
  if ! ((online)); then
    printf "%-7s %5s %8s %13s %10s %6s %7s  %s\n" "$s" "$r" "$q" "$u" "$n" "$l" "$size" "$m"
    return
  fi
  hit=- sigs=-
  if [ -n "${http[$s]:-}" ]; then
    a=$(signing_metrics "${http[$s]}")
    read -r hit sigs < <(awk -v b="$b" -v a="$a" -v t="$t" 'BEGIN {
      split(b, x, " "); split(a, y, " ")
      h = y[1] - x[1]; all = h + y[2] - x[2] + y[3] - x[3]
      printf "%s %.0f\n", all ? sprintf("%.1f", 100 * h / all) : "-", (y[4] - x[4]) / t
      if (y[5] > x[5]) printf "d1: %d signing failures\n", y[5] - x[5] > "/dev/stderr" }')
  fi
  printf "%-7s %5s %8s %13s %10s %6s %7s %6s %9s  %s\n" "$s" "$r" "$q" "$u" "$n" "$l" "$size" "$hit" "$sigs" "$m"
}
# The RCODE mixes of a round agree within half a point (the servers
# complete different numbers of queries, so the shares differ by a little).
check_rcodes() {
  local s
  for s in "${servers[@]:1}"; do
    awk -v p="${servers[0]}" -v a="${mix[${servers[0]}]}" -v q="$s" -v b="${mix[$s]}" -v r="$r" 'BEGIN {
      n = split(a, x, " "); for (i = 1; i <= n; i++) { split(x[i], kv, "="); pa[kv[1]] = kv[2] + 0 }
      n = split(b, x, " "); for (i = 1; i <= n; i++) { split(x[i], kv, "="); pb[kv[1]] = kv[2] + 0 }
      for (k in pb) if (!(k in pa)) pa[k] = 0
      for (k in pa) { d = pa[k] - pb[k]; if (d < -0.5 || d > 0.5) bad = bad " " k }
      if (bad != "") printf "rcodes  %5s   %s and %s DIFFER in%s\n", r, p, q, bad
    }'
  done
}
for r in $(seq 1 "$rounds"); do
  order=("${servers[@]}")
  if [ $((r % 2)) -eq 0 ]; then
    order=()
    for ((i = ${#servers[@]} - 1; i >= 0; i--)); do order+=("${servers[i]}"); done
  fi
  for s in "${order[@]}"; do run_one "$s"; done
  peer=${servers[0]}
  for s in "${servers[@]:1}"; do
    awk -v hq="${qps[$s]}" -v nq="${qps[$peer]}" -v hu="${us[$s]}" -v nu="${us[$peer]}" -v r="$r" \
      -v what="$s/$peer" 'BEGIN { printf "ratio   %5s   %s qps %.2f   cpu/query %.2f\n", r, what, hq / nq, hu / nu }'
  done
  if ((online)); then check_rcodes; fi
done
