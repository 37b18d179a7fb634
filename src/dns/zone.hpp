// One authoritative zone, checked and indexed for answering.
//
// A zone is a tree of nodes (RFC 1034 §4.3.2), stored flat: one Node per
// owner name, plus one per empty non-terminal (RFC 4592 §2.2.2: a name with
// no records but with descendants exists, and answers NODATA), sorted in
// canonical order (RFC 4034 §6.1), so node 0 is the apex and the NSEC that
// covers a name is found by binary search. Every node knows its parent node,
// so the responder walks from the apex down to the query name one label at a
// time, looking each ancestor up in a case-insensitive hash index by its wire
// suffix (no copy, no allocation).
//
// NSEC3 records live apart from the tree (their owners are hashes, not
// names anyone queries), in a table sorted by the raw hash.
//
// A zone signed online (signing/) carries its keys: the apex gets a DNSKEY
// RRset made from them, and the responder signs answers at query time. Such
// a zone holds no RRSIG, NSEC or NSEC3 of its own.
//
// A zone is immutable once built and shared between threads (read-only).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dns/detail/name_index.hpp"
#include "dns/name.hpp"
#include "dns/record.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns {

namespace signing {
class ZoneKeys;
}

inline constexpr std::uint32_t kNoNode = 0xFFFFFFFF;
// In RRset::targets: the target has no node of its own but a wildcard
// answers for it (RFC 4592): the low bits are the wildcard's node.
inline constexpr std::uint32_t kWildcardTarget = 0x80000000;

using Rdata = std::vector<std::uint8_t>;

// The records of one owner and type, with the RRSIGs that cover them.
struct RRset {
  RRType type;
  std::uint32_t ttl = 0;  // the first record's (RFC 2181 §5.2 wants them equal)
  std::vector<Rdata> rdatas;
  std::vector<Rdata> sigs;  // RRSIG RDATA whose type covered is `type`
  std::uint32_t sig_ttl = 0;
  // NS, MX and SRV: the node each record's target names in this zone
  // (kNoNode if none; kWildcardTarget | node when only a wildcard covers
  // it), resolved at load so that additional-section processing costs no
  // lookup per query.
  std::vector<std::uint32_t> targets;
};

struct Node {
  // The fields a query reads first, then the name (255 octets of room, most
  // unused): a node's flags, its RRsets and the start of its name share the
  // first cache line.
  std::vector<RRset> rrsets;  // ascending type; empty for an empty non-terminal
  std::uint32_t parent = kNoNode;
  std::uint32_t wildcard = kNoNode;  // the node "*.<name>", if the zone has it
  bool cut = false;                  // NS below the apex: a delegation point
  bool occluded = false;             // below a cut or a DNAME: glue, never answered
  Name name;                         // case as written in the zone file

  const RRset* find(RRType t) const noexcept {
    for (const RRset& s : rrsets) {
      if (s.type == t) return &s;
    }
    return nullptr;
  }
};

// NSEC3PARAM as the zone's NSEC3 chain uses it (RFC 5155 §4).
struct Nsec3Params {
  std::uint8_t algorithm = 1;
  std::uint16_t iterations = 0;
  std::vector<std::uint8_t> salt;
};

struct Nsec3Node {
  std::vector<std::uint8_t> hash;  // the owner's first label, base32hex-decoded
  Name name;
  RRset nsec3;  // with its RRSIGs
};

class Zone {
 public:
  const Name& origin() const noexcept { return nodes_[0].name; }
  const Node& apex() const noexcept { return nodes_[0]; }
  const Node& node(std::uint32_t i) const noexcept { return nodes_[i]; }
  std::size_t node_count() const noexcept { return nodes_.size(); }
  const RRset& soa() const noexcept { return *soa_; }
  // The SOA as negative answers carry it (RFC 2308 §5): its TTL, and its
  // RRSIGs' TTL, lowered to the negative-caching TTL.
  const RRset& negative_soa() const noexcept { return negative_soa_; }
  // The SOA's MINIMUM field: the negative-caching TTL is min(SOA TTL, it).
  std::uint32_t negative_ttl() const noexcept { return negative_ttl_; }
  // Signed ahead of time: the zone file holds the DNSKEY and the RRSIGs.
  bool presigned() const noexcept { return !keys_ && apex().find(type::DNSKEY) != nullptr; }
  // Signed at query time with these keys; nullptr for every other zone.
  const signing::ZoneKeys* keys() const noexcept { return keys_.get(); }
  // Unique to this build of the zone in this process (a reload makes a new
  // one): what a cache of signatures keys on, since addresses are reused.
  std::uint64_t generation() const noexcept { return generation_; }

  // The node named by `wire` (the uncompressed wire form of a name, any
  // case), or kNoNode. No allocation.
  std::uint32_t find(std::span<const std::uint8_t> wire) const noexcept {
    return index_.find(wire, detail::NameIndex::hash(wire),
                       [this](std::uint32_t i) { return nodes_[i].name.wire(); });
  }
  std::uint32_t find(const Name& n) const noexcept { return find(n.wire()); }

  // The node whose NSEC matches or covers `n`: the last node with an NSEC
  // RRset at or before `n` in canonical order (the apex if none is before).
  // kNoNode if the zone has no NSEC records.
  std::uint32_t nsec_for(const Name& n) const noexcept;

  bool has_nsec3() const noexcept { return !nsec3_.empty(); }
  const Nsec3Params& nsec3_params() const noexcept { return nsec3_params_; }
  // The NSEC3 record whose hash equals `hash`, or nullptr.
  const Nsec3Node* nsec3_match(std::span<const std::uint8_t> hash) const noexcept;
  // The NSEC3 record that covers `hash` (the last one before it, wrapping to
  // the last of the chain), or the matching one if it matches.
  const Nsec3Node* nsec3_cover(std::span<const std::uint8_t> hash) const noexcept;

  std::size_t nsec3_count() const noexcept { return nsec3_.size(); }
  const Nsec3Node& nsec3_at(std::size_t i) const noexcept { return nsec3_[i]; }

  std::size_t record_count() const noexcept { return record_count_; }

 private:
  friend struct ZoneBuilder;
  std::vector<Node> nodes_;
  detail::NameIndex index_;
  std::vector<std::uint32_t> nsec_nodes_;  // nodes with NSEC, canonical order
  std::vector<Nsec3Node> nsec3_;           // ascending hash
  Nsec3Params nsec3_params_;
  const RRset* soa_ = nullptr;
  RRset negative_soa_;
  std::uint32_t negative_ttl_ = 0;
  std::size_t record_count_ = 0;
  std::shared_ptr<const signing::ZoneKeys> keys_;
  std::uint64_t generation_ = 0;
};

// What a zone may ask of the server, checked at load.
struct ZoneLimits {
  // NSEC3 hash iterations (NSEC3 and NSEC3PARAM records). Each NXDOMAIN or
  // wildcard answer of an NSEC3 zone hashes up to three names, each
  // iterations + 1 times, at query time: a zone with 2,500 iterations makes
  // every such query cost thousands of SHA-1 runs. RFC 9276 asks zones for
  // 0 and lets validators treat large counts as insecure (their limits lie
  // between 50 and 150). A zone over the limit is refused, with the file and
  // line of its first such record; the other zones are served.
  std::uint16_t max_nsec3_iterations = 100;
};

// What a zone signed online brings to build_zone. The keys are opaque to
// this library (signing/ reads them, the responder signs with them); the
// zone only publishes their DNSKEY RDATA and checks its records can be
// signed.
struct OnlineSigning {
  std::shared_ptr<const signing::ZoneKeys> keys;
  std::vector<Rdata> dnskeys;  // published at the apex, beside any in the file
  std::string key_file;        // one of the key files, named in errors
  // Whether an RRset of this type can be put in canonical form (RFC 4034
  // §6.2); a record of a type that cannot is refused at load.
  bool (*signable)(RRType) noexcept = nullptr;
};

struct ZoneLoad {
  std::shared_ptr<const Zone> zone;  // null if any error was found
  std::vector<ZoneError> errors;     // parse errors, then zone-level errors
};

// Checks parsed records as one zone and indexes them. Zone-level errors, each
// with the file and line of the record at fault: a record outside the
// origin or not of class IN; no SOA, or an SOA not at the apex, or more than
// one; no NS at the apex; a CNAME beside other data (RFC 2181 §10.1, RRSIG and
// NSEC excepted: RFC 4035 §2.5) or more than one CNAME or DNAME at a name; an
// RRSIG covering a type the name does not have; NSEC3 iterations over
// `limits`. Identical records are merged (RFC 2181 §5). A zone with any
// error is not built.
//
// With `online`: any RRSIG, NSEC, NSEC3 or NSEC3PARAM is an error (the
// server makes them), as is a type `online->signable` refuses; the apex
// gets the keys' DNSKEYs with the SOA's TTL.
ZoneLoad build_zone(const Name& origin, ZoneResult parsed, const ZoneLimits& limits = {},
                    const OnlineSigning* online = nullptr);

// Reads, parses and builds a zone file.
ZoneLoad load_zone_file(const std::string& path, const Name& origin, const ZoneLimits& limits = {},
                        const OnlineSigning* online = nullptr);

}  // namespace herald::dns
