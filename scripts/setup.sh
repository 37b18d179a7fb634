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
  # fuzzing (libFuzzer ships in clang's runtime) and code hygiene
  clang libclang-rt-14-dev clang-format clang-tidy
  # libraries: asio/beast, config, flags, logs, JSON, TLS/HMAC, Redis
  libboost1.81-dev libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev
  libsimdjson-dev libssl-dev libhiredis-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev curl procps
  # DNS reference tools for tests
  ldnsutils knot-dnsutils
)

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
