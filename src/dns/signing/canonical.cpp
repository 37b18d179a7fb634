#include "dns/signing/canonical.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>

#include "dns/buffer.hpp"
#include "dns/detail/ascii.hpp"
#include "dns/detail/rdata_fields.hpp"
#include "dns/detail/rdata_schema.hpp"

namespace herald::dns::signing {
namespace {

bool is_name(detail::Field f) noexcept {
  return f == detail::Field::name_c || f == detail::Field::name_d || f == detail::Field::name;
}

// The owner as RR(i) carries it: lower case, and for a wildcard owner
// (fewer labels than the name has) "*." and its rightmost `labels` labels.
Name signed_owner(const Name& owner, std::uint8_t labels) {
  if (labels >= owner.label_count()) return owner.lowercased();
  static const Name star = *Name::from_text("*.");
  // A suffix of a valid name with one label less than a name that fits:
  // "*" (two octets) is at most the length of the label it replaces.
  return *star.concat(owner.parent(owner.label_count() - labels).lowercased());
}

}  // namespace

namespace {

// The types of RFC 4034 §6.2 item 3 with no layout here (no constant in
// types.hpp for MD 3, MF 4, A6 38).
constexpr std::array<RRType, 6> kNoLayout{RRType{3}, RRType{4}, type::SIG,
                                          type::PX,  type::NXT, RRType{38}};
// The rest of the list, less NSEC (RFC 6840 §5.1). HINFO is listed by the
// RFC though it holds no names.
constexpr std::array<RRType, 18> kFoldedWithLayout{
    type::NS,  type::CNAME, type::SOA,   type::MB, type::MG,    type::MR,
    type::PTR, type::HINFO, type::MINFO, type::MX, type::RP,    type::AFSDB,
    type::RT,  type::SRV,   type::NAPTR, type::KX, type::DNAME, type::RRSIG};

template <std::size_t N>
bool listed(const std::array<RRType, N>& list, RRType t) noexcept {
  return std::find(list.begin(), list.end(), t) != list.end();
}

}  // namespace

bool canonical_lowercases(RRType t) noexcept {
  return listed(kFoldedWithLayout, t) || listed(kNoLayout, t);
}

bool canonical_form_known(RRType t) noexcept {
  return !listed(kNoLayout, t);
}

void append_canonical_rdata(RRType t, std::span<const std::uint8_t> rdata,
                            std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  out.insert(out.end(), rdata.begin(), rdata.end());
  if (!canonical_lowercases(t)) return;
  const detail::Descriptor* d = detail::find_descriptor(t);
  if (d == nullptr) return;  // HINFO has no names; the others are refused at load
  // Walk the fields with their own decoders (RDATA valid by construction,
  // so every step succeeds) and fold the octets of each name in place:
  // folding a wire-form name leaves its length octets alone (ascii.hpp).
  Reader r(rdata);
  detail::Sink none{nullptr};
  const detail::WireContext c{0, false};
  for (std::size_t i = 0; i < d->count; ++i) {
    const std::size_t from = r.position();
    [[maybe_unused]] Error e = detail::field_kind(d->fields[i]).decode(r, c, none);
    assert(!e);
    if (is_name(d->fields[i])) {
      std::uint8_t* p = out.data() + start + from;
      detail::fold_plain(p, p, r.position() - from);
    }
  }
}

std::span<const std::uint8_t> SignedData::build(const RrsigFields& fields, const Name& owner,
                                                std::span<const std::vector<std::uint8_t>> rdatas) {
  canonical_.clear();
  ranges_.clear();
  for (const auto& rd : rdatas) {
    const std::size_t at = canonical_.size();
    append_canonical_rdata(fields.covered, rd, canonical_);
    // Safety: an RDATA is at most 65535 octets and an RRset fits a message,
    // so offsets and lengths fit 32 bits.
    ranges_.emplace_back(static_cast<std::uint32_t>(at),
                         static_cast<std::uint32_t>(canonical_.size() - at));
  }
  const std::uint8_t* base = canonical_.data();
  auto bytes = [base](const std::pair<std::uint32_t, std::uint32_t>& r) {
    return std::span<const std::uint8_t>(base + r.first, r.second);
  };
  auto less = [&](const auto& a, const auto& b) {
    auto x = bytes(a), y = bytes(b);
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
  };
  auto same = [&](const auto& a, const auto& b) {
    auto x = bytes(a), y = bytes(b);
    return std::equal(x.begin(), x.end(), y.begin(), y.end());
  };
  std::sort(ranges_.begin(), ranges_.end(), less);
  ranges_.erase(std::unique(ranges_.begin(), ranges_.end(), same), ranges_.end());

  out_.clear();
  append_rrsig_fields(fields, out_);
  const Name o = signed_owner(owner, fields.labels);
  Writer w(out_, std::numeric_limits<std::size_t>::max());
  for (const auto& r : ranges_) {
    w.bytes(o.wire());
    w.u16(fields.covered.value);
    w.u16(rrclass::IN.value);
    w.u32(fields.original_ttl);
    w.u16(static_cast<std::uint16_t>(r.second));  // Safety: one RDATA, at most 65535 octets
    w.bytes(bytes(r));
  }
  return out_;
}

}  // namespace herald::dns::signing
