#!/bin/bash
# Signs the zones listed in OUT_DIR/signed.list in place (ldns-keygen: one
# ECDSA P-256 key per zone, used as KSK and ZSK; ldns-signzone: alternately
# NSEC and NSEC3 with 0 iterations, RFC 9276). Two signers at a time, niced.
#   sign.sh OUT_DIR
set -euo pipefail
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
export -f sign_one
awk -v out="$out" '{ print out, $1, NR }' "$out/signed.list" |
  nice -n 10 xargs -P 2 -n 3 bash -c 'sign_one "$@"' _
