#!/usr/bin/env python3
"""D1 inputs (docs/benchmarks.md): synthetic zones and a binary query file.

    gen.py OUT_DIR [--zones 20000] [--signed 0.1] [--queries 500000] [--seed 1]

Writes OUT_DIR/zones/<origin>.zone (the first `signed` share of the zones
is then signed by sign.sh), OUT_DIR/nsd.zones (NSD `zone:` blocks), and
OUT_DIR/queries.bin: dnsperf's -B format (each query a 2-octet length and
the wire message), so each query carries its own EDNS DO bit: DO on 83%.
Query mix: 60% positive, 20% NXDOMAIN, 20% NODATA. Deterministic for a seed.
"""
import argparse
import os
import random
import struct

ZONE = """$ORIGIN {o}
$TTL 3600
@        SOA   ns1 hostmaster 2024010101 7200 3600 1209600 300
@        NS    ns1
@        NS    ns2
@        A     192.0.2.{a}
@        MX    10 mail
@        TXT   "v=spf1 mx -all"
ns1      A     198.51.100.{a}
ns2      A     203.0.113.{a}
www      CNAME @
mail     A     192.0.2.{b}
api      A     192.0.2.{c}
api      AAAA  2001:db8::{a:x}
*.cdn    A     192.0.2.{d}
_sip._tcp SRV  0 5 5060 api
"""

POSITIVE = [("www", "A"), ("", "A"), ("mail", "A"), ("api", "AAAA"), ("", "MX"),
            ("img.cdn", "A"), ("", "NS"), ("_sip._tcp", "SRV"), ("", "TXT")]
NODATA = [("mail", "AAAA"), ("api", "TXT"), ("www.cdn", "MX"), ("ns1", "AAAA")]
TYPES = {"A": 1, "NS": 2, "MX": 15, "TXT": 16, "AAAA": 28, "SRV": 33}


def origin(i):
    return "d1z%05d.bench." % i


def wire_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def query(qid, name, qtype, do):
    header = struct.pack("!HHHHHH", qid, 0, 1, 0, 0, 1)
    q = wire_name(name) + struct.pack("!HH", TYPES[qtype], 1)
    opt = b"\0" + struct.pack("!HHIH", 41, 1232, 0x8000 if do else 0, 0)
    msg = header + q + opt
    return struct.pack("!H", len(msg)) + msg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--zones", type=int, default=20000)
    ap.add_argument("--signed", type=float, default=0.1)
    ap.add_argument("--queries", type=int, default=500000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    zdir = os.path.join(args.out, "zones")
    os.makedirs(zdir, exist_ok=True)
    with open(os.path.join(args.out, "nsd.zones"), "w") as nsd:
        for i in range(args.zones):
            o = origin(i)
            path = os.path.join(zdir, o + "zone")
            with open(path, "w") as f:
                f.write(ZONE.format(o=o, a=i % 250 + 1, b=(i * 7) % 250 + 1,
                                    c=(i * 13) % 250 + 1, d=(i * 17) % 250 + 1))
            nsd.write('zone:\n  name: "%s"\n  zonefile: "%s"\n' % (o, path))
    with open(os.path.join(args.out, "signed.list"), "w") as f:
        for i in range(int(args.zones * args.signed)):
            f.write(origin(i) + "\n")
    with open(os.path.join(args.out, "queries.bin"), "wb") as f:
        for n in range(args.queries):
            z = origin(rnd.randrange(args.zones))
            r = rnd.random()
            if r < 0.6:
                label, qtype = rnd.choice(POSITIVE)
            elif r < 0.8:
                label, qtype = "nx%d" % rnd.randrange(1 << 30), "A"
            else:
                label, qtype = rnd.choice(NODATA)
            name = (label + "." if label else "") + z
            f.write(query(n & 0xFFFF, name, qtype, rnd.random() < 0.83))


if __name__ == "__main__":
    main()
