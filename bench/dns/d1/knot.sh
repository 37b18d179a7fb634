#!/bin/bash
# Knot DNS's half of D1-online (docs/benchmarks.md): the zone part of
# knotd's configuration and its KASP database with the keys sign.sh
# --online made, so that knotd's mod-onlinesign signs the same zones with
# the same keys as heraldd's dns.keys_dir.
#   knot.sh DIR
#
# DIR is run.sh --online's input directory (zones/, keys/, signed.list,
# nsd.zones). Writes DIR/knot/:
#   zones.conf   policy, mod-onlinesign, two templates (plain zones, and
#                online zones with `module: mod-onlinesign/d1`) and one
#                `zone:` per zone; run.sh includes it after its `server:`
#   keymgr.conf  just the database, for keymgr (it needs no zone list)
#   kasp/        the KASP database: each key imported once with `keymgr
#                import-bind` (publish = active = now; ldns-keygen -k sets
#                the SEP flag, so Knot takes it as a KSK) and made a CSK with
#                `set <tag> zsk=yes`, or Knot would sign only the DNSKEY set
#   done         the marker: the import is slow (two keymgr runs per zone,
#                ~0.1 s each), so it is done once and kept
# An interrupted import starts again from an empty database (importing a
# key twice resets its roles).
set -euo pipefail
out=$(cd "$1" && pwd)
k=$out/knot
[ -f "$k/done" ] && exit 0
rm -rf "$k" && mkdir -p "$k/kasp"

cat > "$k/keymgr.conf" <<CONF
database:
  storage: "$k"
  kasp-db: "$k/kasp"
CONF

# Knot 3.2's module has no NXNAME: `nsec-bitmap: TYPE128` makes its NSEC
# for a name that does not exist RFC 9824's "RRSIG NSEC NXNAME", as
# heraldd's (docs/plans/online-signing.md §2.4). The zones are served as
# loaded: no journal, no write-back, no semantic checks (NSD's and
# heraldd's loads check less than Knot's default).
{
  cat <<CONF
policy:
  - id: d1
    manual: on
    algorithm: ECDSAP256SHA256
    rrsig-lifetime: 7d

mod-onlinesign:
  - id: d1
    policy: d1
    nsec-bitmap: TYPE128

template:
  - id: default
    storage: "$out/zones"
    file: "%s.zone"
    zonefile-load: whole
    zonefile-sync: -1
    journal-content: none
    semantic-checks: off
  - id: online
    storage: "$out/zones"
    file: "%s.zone"
    zonefile-load: whole
    zonefile-sync: -1
    journal-content: none
    semantic-checks: off
    module: mod-onlinesign/d1

zone:
CONF
  # nsd.zones has every zone (`name: "d1z00000.bench."`), signed.list the
  # online ones.
  awk 'NR == FNR { online[$1] = 1; next }
       /name:/ { gsub(/"/, "", $2); print "  - domain: " $2
                 if ($2 in online) print "    template: online" }' \
    "$out/signed.list" "$out/nsd.zones"
} > "$k/zones.conf"

import_one() {  # keymgr.conf keys-dir origin
  local conf=$1 keys=$2 origin=$3 files f tag
  files=("$keys/K${origin}+013+"*.private)
  if [ "${#files[@]}" -ne 1 ] || [ ! -f "${files[0]}" ]; then
    echo "knot.sh: not one key for $origin in $keys" >&2
    return 1
  fi
  f=${files[0]}
  tag=${f%.private}; tag=$((10#${tag##*+}))
  keymgr -c "$conf" "$origin" import-bind "$f" >/dev/null &&
    keymgr -c "$conf" "$origin" set "$tag" zsk=yes >/dev/null
}
export -f import_one
n=$(wc -l < "$out/signed.list")
echo "knot.sh: importing $n keys into $k/kasp" >&2
awk -v conf="$k/keymgr.conf" -v keys="$out/keys" '{ print conf, keys, $1 }' "$out/signed.list" |
  nice -n 10 xargs -P 2 -n 3 bash -c 'import_one "$@"' _

# Every online zone must hold exactly one key, a CSK.
bad=0
while read -r origin; do
  if [ "$(keymgr -c "$k/keymgr.conf" "$origin" list | grep -c ' CSK ')" -ne 1 ]; then
    echo "knot.sh: $origin has no single CSK:" >&2
    keymgr -c "$k/keymgr.conf" "$origin" list >&2
    bad=1
  fi
done < <(sed -n '1p;$p' "$out/signed.list")
[ "$bad" -eq 0 ] || exit 1
touch "$k/done"
