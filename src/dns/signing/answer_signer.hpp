// The signatures of one answer's RRsets, made at query time for a zone
// signed online.
//
// The responder marks which entries of an answer a zone signed online must
// sign (the RRsets it is authoritative for; never a referral's NS, glue, or
// a CNAME synthesized from a DNAME); this class turns each into RRSIG
// RDATA, one per key that signs its type (ZoneKeys::signers_for), in an
// arena that lives for one answer. The RRSIGs are built whole here, so the
// encoder copies octets and knows nothing of signing.
//
// Validity window: inception = now - inception_offset (resolvers' clocks
// lag too), expiration = now + validity. Times are RFC 1982 serial numbers
// modulo 2^32 (RFC 4034 §3.1.5): plain u32 arithmetic wraps as it should.
//
// Signatures are cached (signature_cache.hpp) under the zone's generation,
// the owner, the type and the TTL, so a hot RRset is signed once per
// validity period rather than per answer. RRsets owned by a name the zone
// does not hold, the NXNAME denial of a name that does not exist and a
// wildcard's answer for a name below it, go to a second table an eighth
// the size: such a name may be asked once (a random-subdomain flood, RFC
// 9824 §8), and a flood of them must not evict the signatures of the names
// the zone holds.
//
// One per shard, like the Responder that owns it: the OpenSSL context, the
// buffers and the caches are reused between answers, so signing allocates
// nothing once they have grown to the largest RRset seen. The caches are
// made at the first signature, so a server with no zone signed online
// spends no memory on them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "dns/name.hpp"
#include "dns/signing/canonical.hpp"
#include "dns/signing/signature_cache.hpp"
#include "dns/signing/signer.hpp"
#include "dns/signing/zone_keys.hpp"
#include "dns/zone.hpp"

namespace herald::dns::signing {

struct SignatureWindow {
  std::uint32_t validity = 7 * 86400;     // expiration - now
  std::uint32_t inception_offset = 3600;  // now - inception
  std::uint32_t refresh = 86400;          // a cached signature is renewed below this
  // Entries of the shard's signature cache; 0 signs every answer afresh.
  std::size_t cache_entries = 65536;
};

// What signing one answer cost, for metrics.
struct SigningCounts {
  std::uint16_t hits = 0;        // RRsets whose signatures came from the cache
  std::uint16_t misses = 0;      // RRsets signed because the cache had none
  std::uint16_t stale = 0;       // RRsets re-signed: the cached ones were near expiry
  std::uint16_t evictions = 0;   // cache entries that made room for these
  std::uint16_t signatures = 0;  // signatures made (each a private-key operation)
  std::uint16_t failures = 0;    // RRsets OpenSSL could not sign
};

// Where one RRset's RRSIGs sit in the arena: `count` RDATAs of `each`
// octets from `at` (the signer and so the length are the same for all).
struct SignedRange {
  std::uint32_t at = 0;
  std::uint16_t count = 0;
  std::uint16_t each = 0;
};

class AnswerSigner {
 public:
  explicit AnswerSigner(SignatureWindow window) : window_(window) {}

  // A new answer: the arena and the counts start empty.
  void clear() noexcept {
    arena_.clear();
    counts_ = {};
  }

  // The RRSIGs of `set` as owned by `owner` (a wildcard's RRset is signed
  // as the query name it answered for: RFC 9824 §3.3) in `zone`, whose
  // keys() must be set, at time `now`: from the cache, or signed and
  // cached. `one_off`: owned by a name the zone does not hold (the small
  // table). False if a signature could not be made.
  [[nodiscard]] bool sign(const Zone& zone, const Name& owner, const RRset& set, std::uint32_t now,
                          bool one_off, SignedRange& out);

  // The i-th RRSIG RDATA of `r` (i < r.count), valid until clear().
  std::span<const std::uint8_t> rrsig(const SignedRange& r, std::size_t i) const noexcept {
    return {arena_.data() + r.at + i * r.each, r.each};
  }

  const SigningCounts& counts() const noexcept { return counts_; }

 private:
  // Signs with every key that signs `set`'s type into `value`.
  bool sign_afresh(const ZoneKeys& keys, const Name& owner, const RRset& set, std::uint32_t now,
                   CachedSignatures& value);
  // Appends the RRSIG RDATA of each signature in `value`.
  void append_rrsigs(const ZoneKeys& keys, const Name& owner, const RRset& set,
                     const CachedSignatures& value);

  SignatureWindow window_;
  Signer signer_;
  SignedData data_;
  std::unique_ptr<SignatureCache> cache_;          // names that exist
  std::unique_ptr<SignatureCache> one_off_cache_;  // names the zone does not hold
  std::vector<std::uint8_t> arena_;
  SigningCounts counts_;
};

}  // namespace herald::dns::signing
