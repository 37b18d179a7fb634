#!/bin/sh
# Re-signs the two DNSSEC test zones from their .unsigned sources with the
# test keys in keys/ (ECDSA P-256, made with
# `ldns-keygen -a ECDSAP256SHA256 [-k] <zone>`). Signatures are valid from
# 2024 to 2040 so the committed files stay valid; the answers tests compare
# do not depend on the clock. signed.example uses NSEC, nsec3.example NSEC3
# with 0 extra iterations and no salt (RFC 9276).
set -eu
cd "$(dirname "$0")"
keys() { ls keys/K"$1".*.private | sed 's/\.private$//'; }
ldns-signzone -e 20400101000000 -i 20240101000000 -f signed.example.zone \
  signed.example.unsigned $(keys signed.example)
ldns-signzone -n -t 0 -e 20400101000000 -i 20240101000000 -f nsec3.example.zone \
  nsec3.example.unsigned $(keys nsec3.example)
