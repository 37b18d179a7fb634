#!/bin/sh
# Makes the online-signing test keys once (they are committed, as the
# pre-signed zones' keys are): ldns-keygen (Debian ldnsutils) writes
# K<zone>+<alg>+<tag>.{key,private,ds}.
#   online.example.   one ECDSA P-256 key with the SEP flag: a CSK
#   ed25519.example.  one Ed25519 key with the SEP flag: a CSK
#   split.example.    ECDSA P-256, a KSK (SEP) and a ZSK
# These keys sign test answers only; never use them for a real zone.
set -eu
cd "$(dirname "$0")/keys"
ldns-keygen -a ECDSAP256SHA256 -k online.example.
ldns-keygen -a ED25519 -k ed25519.example.
ldns-keygen -a ECDSAP256SHA256 -k split.example.
ldns-keygen -a ECDSAP256SHA256 split.example.
rm -f ./*.ds
# two-algorithms/: online.example.'s key beside an Ed25519 key of the same
# zone, which an online zone refuses (one algorithm per zone).
#   cd ../two-algorithms && ldns-keygen -a ED25519 -k online.example.
#   cp ../keys/Konline.example.+013+11254.* .
# short-secret/: a D1 benchmark key (ldns-keygen -a ECDSAP256SHA256 -k
# d1z01658.bench.) whose secret d has a leading zero octet, which ldns
# leaves out: 31 octets in the .private. Kept as found.
