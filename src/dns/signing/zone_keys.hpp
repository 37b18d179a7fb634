// The signing keys of one zone served online, and which of them sign what.
//
// Roles (RFC 6781 §3.1, the rule Knot's online signer follows too): when
// every key has the same flags, each key is a combined signing key (CSK)
// and signs every RRset. When the zone has both key-signing keys (flags
// 257, the SEP bit) and zone-signing keys (256), the KSKs sign the apex
// DNSKEY RRset (the set a parent's DS points into) and the ZSKs everything
// else. A validator needs a signature by a key of each algorithm in the
// DNSKEY set (RFC 4035 §2.2); one algorithm per zone keeps that true under
// either rule, so a second algorithm is refused (an algorithm rollover is
// not an online signer's job in this version).
//
// At most two keys sign any one RRset: the signature cache keeps two
// signatures per RRset (signature_cache.hpp), and two is what a rollover of
// one key needs. A zone asking for more is refused at load.
//
// Immutable once loaded and shared read-only by every shard through the
// Zone that owns it; the OpenSSL keys inside are only read when signing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "dns/name.hpp"
#include "dns/signing/key_file.hpp"
#include "dns/types.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns::signing {

inline constexpr std::size_t kMaxSignersPerRRset = 2;

class ZoneKeys {
 public:
  // Reads every key pair in `private_files` (each K<origin>+...private) as
  // keys of `origin`. Every file's errors are reported, not just the
  // first's; any error and no ZoneKeys.
  static herald::Result<std::shared_ptr<const ZoneKeys>, std::vector<ZoneError>> load(
      const Name& origin, std::span<const std::string> private_files);

  // The keys (indexes into key()) that sign an RRset of type `t`; `at_apex`
  // says whether it is owned by the zone's apex. One or two.
  std::span<const std::uint8_t> signers_for(RRType t, bool at_apex) const noexcept {
    return (at_apex && t == type::DNSKEY) ? std::span<const std::uint8_t>(apex_keyset_)
                                          : std::span<const std::uint8_t>(others_);
  }
  const SigningKey& key(std::size_t i) const noexcept { return keys_[i]; }
  std::size_t size() const noexcept { return keys_.size(); }
  // The signer's name of every RRSIG: the zone's apex, lower case.
  const Name& signer() const noexcept { return signer_; }
  std::uint8_t algorithm() const noexcept { return keys_.front().algorithm; }
  // One of the key files, for messages that must name the keys.
  const std::string& first_file() const noexcept { return keys_.front().private_path; }

 private:
  ZoneKeys() = default;
  std::vector<SigningKey> keys_;
  std::vector<std::uint8_t> apex_keyset_;  // signers of the apex DNSKEY RRset
  std::vector<std::uint8_t> others_;       // signers of every other RRset
  Name signer_;
};

}  // namespace herald::dns::signing
