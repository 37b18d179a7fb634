#include "dns/signing/answer_signer.hpp"

#include "dns/signing/rrsig.hpp"

namespace herald::dns::signing {

namespace {

RrsigFields fields_for(const ZoneKeys& keys, const Name& owner, const RRset& set,
                       std::uint32_t inception, std::uint32_t expiration) {
  return RrsigFields{set.type, keys.algorithm(), rrsig_labels(owner),
                     set.ttl,  expiration,       inception,
                     0,        keys.signer()};
}

}  // namespace

bool AnswerSigner::sign_afresh(const ZoneKeys& keys, const Name& owner, const RRset& set,
                               std::uint32_t now, CachedSignatures& value) {
  const std::span<const std::uint8_t> signers =
      keys.signers_for(set.type, owner.iequals(keys.signer()));
  value.inception = now - window_.inception_offset;  // serial arithmetic: wraps as it should
  value.expiration = now + window_.validity;
  RrsigFields f = fields_for(keys, owner, set, value.inception, value.expiration);
  // Safety: ZoneKeys::load allows at most kMaxSignersPerRRset (2) signers,
  // the room CachedSignatures has.
  value.count = static_cast<std::uint8_t>(signers.size());
  for (std::size_t i = 0; i < signers.size(); ++i) {
    const SigningKey& key = keys.key(signers[i]);
    f.key_tag = key.tag;
    value.sigs[i].key_tag = key.tag;
    if (!signer_.sign(key, data_.build(f, owner, set.rdatas), value.sigs[i].bytes)) return false;
    ++counts_.signatures;
  }
  return true;
}

void AnswerSigner::append_rrsigs(const ZoneKeys& keys, const Name& owner, const RRset& set,
                                 const CachedSignatures& value) {
  RrsigFields f = fields_for(keys, owner, set, value.inception, value.expiration);
  for (std::size_t i = 0; i < value.count; ++i) {
    f.key_tag = value.sigs[i].key_tag;
    append_rrsig_rdata(f, value.sigs[i].bytes, arena_);
  }
}

bool AnswerSigner::sign(const Zone& zone, const Name& owner, const RRset& set, std::uint32_t now,
                        bool one_off, SignedRange& out) {
  if (!cache_) {
    cache_ = std::make_unique<SignatureCache>(window_.cache_entries);
    one_off_cache_ = std::make_unique<SignatureCache>(window_.cache_entries / 8);
  }
  const ZoneKeys& keys = *zone.keys();
  SignatureCache& cache = one_off ? *one_off_cache_ : *cache_;
  const SignatureCache::Key key = cache.key(zone.generation(), owner, set.type, set.ttl);
  const SignatureCache::Found found = cache.find(key, now, window_.refresh);
  const std::size_t start = arena_.size();
  std::uint8_t count = 0;
  if (found.status == SignatureCache::Status::hit) {
    ++counts_.hits;
    count = found.value->count;
    append_rrsigs(keys, owner, set, *found.value);
  } else {
    if (found.status == SignatureCache::Status::stale) {
      ++counts_.stale;
    } else {
      ++counts_.misses;
    }
    CachedSignatures fresh;
    if (!sign_afresh(keys, owner, set, now, fresh)) {
      ++counts_.failures;
      return false;
    }
    const std::uint64_t evicted = cache.counters().evictions;
    cache.insert(key, fresh);
    if (cache.counters().evictions != evicted) ++counts_.evictions;
    count = fresh.count;
    append_rrsigs(keys, owner, set, fresh);
  }
  // Safety: the arena holds one answer's RRSIGs: tens of RRsets, each with
  // one or two RRSIGs of at most 337 octets (18 + a 255-octet signer + 64),
  // all of one RRset the same length; every figure fits its field.
  out.at = static_cast<std::uint32_t>(start);
  out.count = count;
  out.each = static_cast<std::uint16_t>((arena_.size() - start) / count);
  return true;
}

}  // namespace herald::dns::signing
