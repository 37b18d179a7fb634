#include "dns/signing/compact_denial.hpp"

#include <array>
#include <cassert>
#include <cstring>

#include "dns/types.hpp"

namespace herald::dns::signing {
namespace {

// The name in `buf[0, n)`, built by the functions below from a valid name
// with one label changed, so always valid: a label of 1..63 octets and at
// most 255 octets in all. from_uncompressed checks it again (one pass over
// at most 255 octets), the only way to make a Name.
Name make_name(const std::array<std::uint8_t, kMaxNameWire>& buf, std::size_t n) noexcept {
  auto r = Name::from_uncompressed({buf.data(), n});
  assert(r.ok());
  return r.ok() ? r.value() : Name();
}

// The octet after `c` in case-folded order, for a lower-case `c` < 0xFF:
// 'A'..'Z' fold to 'a'..'z', so no name holds a 0x41-0x5A of its own.
std::uint8_t next_octet(std::uint8_t c) noexcept {
  assert(c < 0xFF && (c < 'A' || c > 'Z'));
  // Safety: c < 0xFF (the caller dropped trailing 0xFF octets), so c + 1 fits.
  return c == 'A' - 1 ? std::uint8_t{'Z' + 1} : static_cast<std::uint8_t>(c + 1);
}

[[maybe_unused]] bool is_lower(const Name& n) noexcept {  // for the asserts
  return n == n.lowercased();
}

}  // namespace

Name delegation_successor(const Name& cut, const Name& apex) noexcept {
  assert(is_lower(cut) && is_lower(apex) && cut.is_subdomain_of(apex));
  std::array<std::uint8_t, kMaxNameWire> buf;
  // Each turn either returns or moves to the parent: the loop ends at the
  // apex after at most label_count() turns.
  for (Name x = cut; x.label_count() > apex.label_count(); x = x.parent()) {
    std::span<const std::uint8_t> w = x.wire();
    std::size_t len = w[0];                                   // the first label: w[1, 1 + len)
    std::span<const std::uint8_t> rest = w.subspan(1 + len);  // the parent's wire
    if (len < kMaxLabel && w.size() < kMaxNameWire) {
      // label | 0x00: the next label in octet order; one octet longer.
      // Safety: len < 63, so len + 1 <= 63 fits a length octet.
      buf[0] = static_cast<std::uint8_t>(len + 1);
      std::memcpy(buf.data() + 1, w.data() + 1, len);
      buf[1 + len] = 0;
      std::memcpy(buf.data() + 2 + len, rest.data(), rest.size());
      return make_name(buf, w.size() + 1);
    }
    std::size_t keep = len;  // the label less its trailing 0xFF octets
    while (keep > 0 && w[keep] == 0xFF) --keep;
    if (keep > 0) {
      // Safety: keep <= len <= 63 fits a length octet.
      buf[0] = static_cast<std::uint8_t>(keep);
      std::memcpy(buf.data() + 1, w.data() + 1, keep - 1);
      buf[keep] = next_octet(w[keep]);
      std::memcpy(buf.data() + 1 + keep, rest.data(), rest.size());
      return make_name(buf, 1 + keep + rest.size());
    }
    // Only 0xFF octets: no later sibling; the next name follows the parent's
    // subtree. The parent is at least two octets shorter, so the append
    // above is refused there only for a 63-octet label.
  }
  return apex;  // the end of the chain (RFC 4034 §4.1.1)
}

Name successor(const Name& owner, const Name& apex) noexcept {
  assert(is_lower(owner) && is_lower(apex) && owner.is_subdomain_of(apex));
  if (owner.wire_size() + 2 <= kMaxNameWire) {
    std::array<std::uint8_t, kMaxNameWire> buf;
    buf[0] = 1;
    buf[1] = 0;
    std::memcpy(buf.data() + 2, owner.wire().data(), owner.wire_size());
    return make_name(buf, owner.wire_size() + 2);
  }
  // 254 or 255 octets: no room for a child, so the name's subtree is the
  // name alone, and what follows it is what follows a cut there.
  return delegation_successor(owner, apex);
}

namespace {

// Writes a bitmap one type at a time, types strictly ascending, straight
// into `out`: no list of types is gathered first, so the node's RRsets and
// the added types merge without a buffer.
class BitmapWriter {
 public:
  explicit BitmapWriter(std::vector<std::uint8_t>& out) noexcept : out_(out) {}

  void add(std::uint16_t t) {
    assert(!any_ || t > last_);
    // Safety: a uint16_t's high and low octets each fit a uint8_t.
    auto window = static_cast<std::uint8_t>(t >> 8);
    auto low = static_cast<std::uint8_t>(t & 0xFF);
    if (!any_ || window != window_) {
      head_ = out_.size();
      out_.push_back(window);
      out_.push_back(0);  // the length, raised below
      window_ = window;
    }
    std::size_t octets = low / 8u + 1;  // 1..32
    if (out_[head_ + 1] < octets) {
      out_.resize(head_ + 2 + octets, 0);
      // Safety: octets <= 32.
      out_[head_ + 1] = static_cast<std::uint8_t>(octets);
    }
    // Bit 0 of an octet is its most significant (RFC 4034 §4.1.2).
    out_[head_ + 2 + low / 8u] |= static_cast<std::uint8_t>(0x80u >> (low % 8u));
    any_ = true;
    last_ = t;
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::size_t head_ = 0;  // where the current window's number is
  std::uint8_t window_ = 0;
  bool any_ = false;
  std::uint16_t last_ = 0;
};

}  // namespace

void append_type_bitmap(std::span<const std::uint16_t> sorted_types,
                        std::vector<std::uint8_t>& out) {
  BitmapWriter w(out);
  for (std::uint16_t t : sorted_types) w.add(t);
}

void compact_nsec(const Node* node, const Name& owner, const Name& apex, Denial d,
                  std::vector<std::uint8_t>& out) {
  const Name next =
      d == Denial::delegation ? delegation_successor(owner, apex) : successor(owner, apex);
  out.assign(next.wire().begin(), next.wire().end());
  BitmapWriter w(out);
  // The types the answer adds itself, ascending: RRSIG NSEC, and NXNAME for nxname.
  static constexpr std::array<std::uint16_t, 3> kAdded{type::RRSIG.value, type::NSEC.value,
                                                       type::NXNAME.value};
  if (d == Denial::nxname) {
    for (std::uint16_t t : kAdded) w.add(t);
    return;
  }
  const std::span<const std::uint16_t> added(kAdded.data(), 2);  // RRSIG NSEC
  // Merges the node's types (ascending) with `added`; a type in both (a
  // zone with NSEC records of its own) is written once.
  std::size_t i = 0;
  if (node != nullptr) {
    for (const RRset& s : node->rrsets) {
      if (d == Denial::delegation && s.type != type::NS && s.type != type::DS) continue;
      for (; i < added.size() && added[i] <= s.type.value; ++i) {
        if (added[i] < s.type.value) w.add(added[i]);
      }
      w.add(s.type.value);
    }
  }
  for (; i < added.size(); ++i) w.add(added[i]);
}

}  // namespace herald::dns::signing
