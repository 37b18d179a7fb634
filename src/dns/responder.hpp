// The authoritative responder: a pure function from a query (wire octets)
// and a zone database to the response (wire octets). No I/O, no clock, no
// randomness: the server (server/) only moves octets, and every answer the
// server gives can be produced and checked here, without sockets.
//
// How a query is answered (RFC 1034 §4.3.2, with RFC 4592 wildcards,
// RFC 6672 DNAME, RFC 4035 §3.1 / RFC 5155 §7.2 DNSSEC, RFC 8482 ANY):
//
//   1. decode; a refusal is dropped or answered FORMERR / NOTIMP per its
//      disposition (error.hpp); EDNS version > 0 gets BADVERS;
//   2. the zone: the longest apex that is a suffix of QNAME (ZoneDb::find);
//      none: REFUSED. A DS query at an apex moves to the parent zone when we
//      serve it (DS lives on the parent side of a cut);
//   3. walk down from the apex one label at a time: a cut (NS below the
//      apex) gives a referral (AA clear, NS + DS or its denial, glue); a
//      DNAME above QNAME synthesises a CNAME and restarts at its target;
//   4. QNAME exists: its RRset (plus the zone's NS in authority and
//      addresses of NS/MX/SRV targets in additional), or its CNAME followed
//      through our zones, or NODATA (SOA in authority);
//   5. QNAME does not exist: the wildcard "*.<closest encloser>" answers in
//      its place, or NXDOMAIN (SOA in authority).
//   With DO: RRSIGs beside each RRset, and NSEC or NSEC3 proofs for every
//   denial and wildcard expansion.
//
// Zones signed online (Zone::keys(), signing/) are answered with DO as RFC
// 9824's compact denial says: every RRset we are authoritative for is
// signed at query time (signing/answer_signer.hpp), a name that does not
// exist gets NOERROR with an NSEC owned by QNAME whose bitmap holds only
// RRSIG NSEC NXNAME (NXDOMAIN when the query sets the CO bit), a missing
// type gets the name's own NSEC, and a wildcard answer carries no proof:
// its RRsets are signed as QNAME itself. Without DO they answer as any zone.
//
// CNAME and DNAME chains are bounded (ResponderOptions::max_chain) and stop
// at the first RRset already in the answer, so a loop ends the chain.
//
// A Responder holds reusable buffers (its plan, compression map, signer and
// synthesized NSECs): one per thread; after the first queries it answers
// without allocating except in the codec's query decoding. It has no
// randomness of its own; ECDSA signatures take their nonces from OpenSSL.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dns/cookie.hpp"
#include "dns/detail/compression.hpp"
#include "dns/message.hpp"
#include "dns/signing/answer_signer.hpp"
#include "dns/signing/compact_denial.hpp"
#include "dns/zone_db.hpp"

namespace herald::dns {

struct ResponderOptions {
  // The largest UDP response, and the size we advertise in OPT: the client's
  // EDNS size is clamped to it (DNS flag day 2020: 1232 avoids fragments).
  std::uint16_t max_udp_payload = 1232;
  // CNAME and DNAME steps followed within our zones before the answer stops.
  std::size_t max_chain = 12;
  // Our NSID (RFC 5001), sent to clients that ask; empty: never sent.
  std::vector<std::uint8_t> nsid;
  // DNS cookies (RFC 7873, server cookies per RFC 9018): a query with a
  // COOKIE option gets its client cookie back with a fresh server cookie.
  // Servers behind one address (anycast) share the secret.
  bool cookies = true;
  CookieSecret cookie_secret{};
  // Enforce cookies (RFC 7873 §5.2.3-4, as BIND's require-server-cookie):
  // over UDP, a query whose COOKIE option has no valid server cookie gets
  // BADCOOKIE with a fresh one instead of an answer, so a cookie-aware
  // client retries with it. Queries without a COOKIE option, and TCP, are
  // answered as usual. Needs `cookies`.
  bool require_cookies = false;
  // Online signing: the validity window of the signatures made at query time.
  signing::SignatureWindow signatures{};
};

// Who asked, and when: inputs of the answer like the query itself (the
// responder reads no clock and no socket).
struct Client {
  std::span<const std::uint8_t> address;  // 4 or 16 octets; empty if unknown
  std::uint32_t now = 0;                  // seconds since the epoch (cookies, signatures)
};

// What a query's COOKIE option held (RFC 7873 §5.2), for metrics.
enum class CookieState : std::uint8_t { none, client_only, valid, invalid };

enum class Transport : std::uint8_t { udp, tcp };

// What happened, for metrics and logs.
struct Outcome {
  bool drop = false;  // nothing was written: send nothing
  std::uint16_t rcode = 0;
  RRType qtype{0};
  bool truncated = false;
  // A zone transfer: `out` holds its messages already framed for TCP (each
  // after a 2-octet length), not one bare message.
  bool framed = false;
  CookieState cookie = CookieState::none;
  signing::SigningCounts signing{};  // zones signed online: what this answer cost
};

// Extended DNS Error codes we send (RFC 8914 §4).
namespace ede {
inline constexpr std::uint16_t kProhibited = 18;
inline constexpr std::uint16_t kNotAuthoritative = 20;
inline constexpr std::uint16_t kNotSupported = 21;
inline constexpr std::uint16_t kInvalidQueryType = 30;  // RFC 9824 §3.5: a query for NXNAME
}  // namespace ede

class Responder {
 public:
  explicit Responder(ResponderOptions opt = {});

  // Answers `query` from `db` into `out` (replaced). With udp, the response
  // fits the client's size (512 without EDNS, else its EDNS size clamped to
  // [512, max_udp_payload]); what does not fit is dropped whole RRsets at a
  // time and TC is set, except that additional-section RRsets are dropped
  // silently (RFC 2181 §9) unless they are a referral's in-domain glue
  // (RFC 9471: name servers at or below the cut; sibling and other glue is
  // optional). OPT is always kept.
  //
  // AXFR and IXFR are answered (with the full zone, transfer.hpp) only over
  // TCP and only when the server's ACL let the client through
  // (`transfer_allowed`); otherwise REFUSED with EDE 18 (Prohibited).
  //
  // A server cookie that is missing or not valid is answered with a fresh
  // server cookie (RFC 7873 §5.2.3 allows it), or, with require_cookies and
  // over UDP, with BADCOOKIE and the fresh cookie only.
  Outcome respond(const ZoneDb& db, std::span<const std::uint8_t> query, Transport transport,
                  std::vector<std::uint8_t>& out, bool transfer_allowed = false,
                  const Client& client = {});

  const ResponderOptions& options() const noexcept { return opt_; }

 private:
  enum Section : std::uint8_t { kAnswer = 0, kAuthority = 1, kAdditional = 2 };
  struct Entry {
    const Name* owner;
    const RRset* set;
    bool sigs_only;  // an RRSIG query: the signatures, not the records
    // Glue a referral cannot go without (RFC 9471): an address of a name
    // server at or below the cut. Over UDP, a required entry that does not
    // fit sets TC; other additional records are dropped silently.
    bool required = false;
    // A zone signed online that signs this RRset (nullptr: not signed at
    // query time), and where its RRSIGs are once signed.
    const Zone* signer = nullptr;
    // Owned by a name the zone does not hold: a denial of it, or a
    // wildcard's answer for it (signed into the small cache).
    bool one_off = false;
    signing::SignedRange sigs{};
  };

  void reset();
  void lookup(const ZoneDb& db, const Name& qname, std::size_t depth);
  void answer_in_zone(const ZoneDb& db, const Zone& zone, const Name& qname, std::size_t depth);
  void answer_node(const ZoneDb& db, const Zone& zone, std::uint32_t node, const Name& owner,
                   std::uint32_t wildcard_encloser, const Name& qname, std::size_t depth);
  void referral(const Zone& zone, std::uint32_t cut, std::size_t depth);
  void dname(const ZoneDb& db, const Zone& zone, std::uint32_t node, const Name& qname,
             std::size_t labels_kept, std::size_t depth);
  void nodata(const Zone& zone, std::uint32_t node, std::uint32_t wildcard_encloser,
              const Name& qname);
  void nxdomain(const Zone& zone, std::uint32_t encloser, const Name& qname);

  bool add(Section s, const Name* owner, const RRset* set, const Zone* signer,
           bool sigs_only = false, bool required = false);
  bool contains(const RRset* set, const Name& owner) const noexcept;
  void add_targets(const Zone& zone, const RRset& set, bool glue);
  void add_glue(const Zone& zone, const RRset& ns, const Name& cut);
  void add_nsec(const Zone& zone, const Name& name);
  void add_nsec3_match(const Zone& zone, const Name& name);
  void add_nsec3_cover(const Zone& zone, const Name& name);
  void add_compact_nsec(Section s, const Zone& zone, const Name& owner, const Node* node,
                        signing::Denial d);
  bool sign_entries();
  const Name* keep(const Name& n);
  // Proofs from a pre-signed zone's own NSEC/NSEC3 records.
  bool dnssec(const Zone& zone) const noexcept { return do_ && zone.presigned(); }
  // The zone that signs what it answers now: a zone signed online, asked
  // with DO. nullptr otherwise, and for what is never signed: a referral's
  // NS, glue, a CNAME synthesized from a DNAME (RFC 4035 §2.2, RFC 6672 §5.3.1).
  const Zone* sign_by(const Zone& zone) const noexcept {
    return do_ && zone.keys() != nullptr ? &zone : nullptr;
  }

  Outcome write_error(std::span<const std::uint8_t> query, std::uint16_t rcode,
                      std::vector<std::uint8_t>& out);
  void encode(const Message& query, std::size_t limit, std::vector<std::uint8_t>& out,
              Outcome& outcome, const Client& client);

  ResponderOptions opt_;
  std::vector<Entry> sections_[3];
  std::vector<Name> names_;   // synthesised names (capacity fixed: see keep)
  std::vector<RRset> synth_;  // synthesised CNAMEs from DNAMEs (capacity fixed)
  // Compact-denial NSECs of this answer: sized once, reused (each keeps its
  // RDATA's capacity), so entries may point into it.
  std::vector<RRset> nsec_pool_;
  std::size_t nsec_used_ = 0;
  signing::AnswerSigner signer_;
  RRType qtype_{0};
  bool do_ = false;
  bool co_ = false;        // the Compact Answers OK flag (RFC 9824 §5.1)
  std::uint32_t now_ = 0;  // Client::now: the signatures' clock
  bool aa_ = false;
  std::uint16_t rcode_ = 0;
  std::uint16_t ede_ = 0xFFFF;              // none
  CookieState cookie_ = CookieState::none;  // the query's, computed once
  detail::CompressionMap map_;
};

}  // namespace herald::dns
