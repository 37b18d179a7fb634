#!/bin/bash
# Signs the zones listed in OUT_DIR/signed.list in place (ldns-keygen: one
# ECDSA P-256 key per zone, used as KSK and ZSK; ldns-signzone: alternately
# NSEC and NSEC3 with 0 iterations, RFC 9276). Two signers at a time, niced.
#   sign.sh OUT_DIR
#
# With --online (D1-online, signed at query time): only the keys, one
# ECDSA P-256 key per listed zone with the SEP flag (a combined signing
# key), into OUT_DIR/keys; the zone files stay unsigned, as heraldd's
# dns.keys_dir and Knot's mod-onlinesign want them. A zone that already has
# a key keeps it, so an interrupted run resumes and a second run changes
# nothing.
#   sign.sh --online OUT_DIR
set -euo pipefail
online=0
if [ "${1:-}" = --online ]; then online=1; shift; fi
out=$(cd "$1" && pwd)
mkdir -p "$out/keys"
sign_one() {
  local out=$1 origin=$2 n=$3
  cd "$out/keys"
  local key
  key=$(ldns-keygen -a ECDSAP256SHA256 -k "$origin")
  rm -f "$key.ds"
  local zone="$out/zones/${origin}zone"
  local nsec3=()
  if ((n % 2 == 1)); then nsec3=(-n -t 0); fi
  ldns-signzone "${nsec3[@]}" -e 20400101000000 -i 20240101000000 -f "$zone.signed" "$zone" "$key"
  mv "$zone.signed" "$zone"
}
key_one() {
  local out=$1 origin=$2
  cd "$out/keys"
  if compgen -G "K${origin}+013+*.private" >/dev/null; then return 0; fi
  local key
  key=$(ldns-keygen -a ECDSAP256SHA256 -k "$origin")
  rm -f "$key.ds"
}
export -f sign_one key_one
if ((online)); then
  awk -v out="$out" '{ print out, $1 }' "$out/signed.list" |
    nice -n 10 xargs -P 2 -n 2 bash -c 'key_one "$@"' _
else
  awk -v out="$out" '{ print out, $1, NR }' "$out/signed.list" |
    nice -n 10 xargs -P 2 -n 3 bash -c 'sign_one "$@"' _
fi
