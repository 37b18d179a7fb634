#!/usr/bin/env bash
# Installs everything Herald needs to build, test and benchmark, on Debian 12,
# from nothing. Idempotent: when every package is present it prints nothing and
# exits 0 without touching the network.
#
#   scripts/setup.sh           install what is missing (needs root or sudo)
#   scripts/setup.sh --check   list what is missing, exit 1 if anything is
set -euo pipefail

# One line per purpose, so a reader can see why each package is here.
PACKAGES=(
  # toolchain and build
  build-essential cmake ninja-build ccache pkg-config git
  # LLVM's linker, for every preset (CMakePresets.json): it links the ASan
  # build's 2.3 GB of executables in a quarter of GNU ld's CPU
  lld
  # fuzzing (libFuzzer ships in clang's runtime) and code hygiene
  clang libclang-rt-14-dev clang-format clang-tidy
  # libraries: asio/beast, config, flags, logs, JSON, TLS/HMAC, Redis,
  # permessage-deflate
  libboost1.81-dev libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev
  libsimdjson-dev libssl-dev libhiredis-dev zlib1g-dev
  # HTTP(S) client for JWK sets fetched from a URL (auth.jwks_url)
  libcurl4-openssl-dev
  # PCRE2: the patterns a token's iss and aud must match
  # (auth.issuer_regex, auth.audience_regex), in Go's regexp syntax
  libpcre2-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev curl procps
  # the two candidate stores of per-user room state, measured side by side
  # (bench/state, S1 of docs/benchmarks.md), and SQLite's shell
  libsqlite3-dev liblmdb-dev sqlite3
  # the openssl command line: an independent JWT signer for the token tests
  openssl
  # a real Redis for the Redis client, shared dictionary and cluster tests
  # (tests/redis, tests/cluster); redis-tools' redis-cli forms the test's
  # Redis Cluster
  redis-server redis-tools
  # DNS reference tools for tests, and the reference server and load
  # generator of the DNS differential test and benchmark (D1)
  ldnsutils knot-dnsutils nsd dnsperf
  # ldns as a library: the independent verifier of the signatures the
  # online signer makes (tests/dns/signing); BIND's delv, the validator the
  # online-signed answers must satisfy (tests/dns/server/online_test.cpp)
  libldns-dev pkg-config bind9-dnsutils
  # Knot DNS (knotd, keymgr): its mod-onlinesign is the reference online
  # signer of the differential test (tests/dns/server/knot_diff_test.cpp)
  knot
  # match benchmarks (K2): the word list for dictionaries and haystacks, and
  # the two bench-only peers (never linked into src/): Hyperscan, and the
  # aho-corasick crate, built offline by Debian's cargo and rustc from
  # Debian's registry of crate sources (bench/match/CMakeLists.txt)
  wamerican libhyperscan-dev cargo rustc librust-aho-corasick-dev
  # Unicode's own data files (CaseFolding.txt, UnicodeData.txt): the oracles
  # the keyword engine's case folding and word characters are checked
  # against (tests/match)
  unicode-data
  # the optional io_uring build of the gateway (cmake -DHERALD_IO_URING=ON)
  liburing-dev
  # browser tests of the web app (headless, driven by playwright-core)
  chromium
)

# Node.js runs the WebSocket client tests (tests/node). A machine that has
# node already (from any source) keeps it; otherwise Debian's packages.
if ! command -v node >/dev/null 2>&1; then PACKAGES+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(npm); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [[ "${1:-}" == "--check" ]]; then
  if ((${#missing[@]})); then printf 'missing: %s\n' "${missing[*]}"; exit 1; fi
  exit 0
fi


if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm packages, pinned by each folder's package-lock.json: the Node.js
# client tests (ws; centrifuge, Centrifugo's SDK; cent.js, a client of its
# server API), the benchmark's two
# reference servers (ws, and uWebSockets.js, whose native binaries ship
# inside the npm package), and playwright-core for
# the browser tests (which drive Debian's chromium: no browser download). One
# folder:package entry per package checked (a scoped name works: the part
# after the first colon is a path under node_modules); a folder with any
# missing gets `npm ci`.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for pkg in tests/node:ws tests/node:centrifuge tests/node:cent.js bench/gateway:ws bench/gateway:@trufflesuite/uws-js-unofficial \
  tests/browser:playwright-core; do
  dir="${pkg%%:*}"
  if [[ ! -d "$ROOT/$dir/node_modules/${pkg#*:}" ]]; then
    echo "setup: installing npm packages for $dir"
    (cd "$ROOT/$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
