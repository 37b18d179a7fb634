#include "dns/rrl.hpp"

namespace herald::dns {
namespace {

// ::ffff:0:0/96 (RFC 4291 §2.5.5.2).
bool is_v4_mapped(std::span<const std::uint8_t> a) noexcept {
  for (std::size_t i = 0; i < 10; ++i)
    if (a[i] != 0) return false;
  return a[10] == 0xFF && a[11] == 0xFF;
}

}  // namespace

RateLimiter::RateLimiter(std::uint32_t rate, std::uint32_t slip, std::size_t slots)
    : rate_(rate), slip_(slip), table_(rate == 0 ? 0 : (slots == 0 ? 1 : slots)) {}

RateLimiter::Action RateLimiter::check(std::span<const std::uint8_t> address,
                                       std::uint32_t now) noexcept {
  if (rate_ == 0) return Action::send;
  // A dual-stack listener ([::]) sees IPv4 clients as ::ffff:a.b.c.d, whose
  // first 7 octets are zero for every one of them: keyed as IPv6 they would
  // all share one bucket, and one busy client would silence the rest. They
  // are keyed as the IPv4 address they are.
  if (address.size() == 16 && is_v4_mapped(address)) address = address.subspan(12);
  // The network: the first 3 octets of IPv4, the first 7 of IPv6 (/56).
  std::size_t n = address.size() == 4 ? 3 : address.size() >= 7 ? 7 : address.size();
  std::uint64_t prefix = 0;  // at most 7 octets: fits with the family below
  for (std::size_t i = 0; i < n; ++i) prefix = prefix << 8 | address[i];
  // The low octet says the family (4 or 6), so the key is never 0 (the
  // empty mark) and a v4 network never equals a v6 one.
  std::uint64_t key = prefix << 8 | (address.size() == 4 ? 4u : 6u);
  std::uint64_t h = key * 0x9E3779B97F4A7C15ULL;
  Bucket& b = table_[(h >> 32) % table_.size()];
  if (b.key != key || b.second != now) b = Bucket{key, now, 0, 0};
  if (++b.count <= rate_) return Action::send;
  ++b.over;
  return slip_ != 0 && b.over % slip_ == 0 ? Action::slip : Action::drop;
}

void truncate_to_question(std::vector<std::uint8_t>& r) {
  if (r.size() < 12) return;
  std::size_t at = 12;
  if (r[4] != 0 || r[5] != 0) {
    // The question's name is the first in the message: never compressed.
    while (at < r.size() && r[at] != 0) at += 1u + r[at];
    at += 1 + 4;  // root label, QTYPE, QCLASS
  }
  if (at > r.size()) return;
  r.resize(at);
  r[2] |= 0x02;  // TC
  for (std::size_t i = 6; i < 12; ++i) r[i] = 0;
}

}  // namespace herald::dns
