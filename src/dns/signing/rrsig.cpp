#include "dns/signing/rrsig.hpp"

#include <limits>

#include "dns/buffer.hpp"

namespace herald::dns::signing {

std::uint8_t rrsig_labels(const Name& owner) noexcept {
  auto w = owner.wire();
  const bool wildcard = w.size() > 2 && w[0] == 1 && w[1] == '*';
  // Safety: a name has at most 127 labels (255 octets, two per label), so
  // the count fits the field's octet.
  return static_cast<std::uint8_t>(owner.label_count() - (wildcard ? 1 : 0));
}

void append_rrsig_fields(const RrsigFields& f, std::vector<std::uint8_t>& out) {
  Writer w(out, std::numeric_limits<std::size_t>::max());
  w.u16(f.covered.value);
  w.u8(f.algorithm);
  w.u8(f.labels);
  w.u32(f.original_ttl);
  w.u32(f.expiration);
  w.u32(f.inception);
  w.u16(f.key_tag);
  w.bytes(f.signer.lowercased().wire());
}

void append_rrsig_rdata(const RrsigFields& f, std::span<const std::uint8_t> signature,
                        std::vector<std::uint8_t>& out) {
  append_rrsig_fields(f, out);
  out.insert(out.end(), signature.begin(), signature.end());
}

}  // namespace herald::dns::signing
