// SipHash-2-4 (Aumasson and Bernstein, 2012), 64-bit output, as RFC 9018
// uses it for DNS server cookies. Written here rather than taken from
// OpenSSL: its SIPHASH is an EVP_MAC whose context is allocated per use,
// and a cookie is computed on the hot path of every query that carries one.
// Checked against the paper's test vector and RFC 9018's examples
// (tests/dns/cookie_test.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace herald::dns::detail {

inline std::uint64_t siphash24(std::span<const std::uint8_t, 16> key,
                               std::span<const std::uint8_t> in) noexcept {
  auto load = [](const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];  // little-endian
    return v;
  };
  auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  std::uint64_t k0 = load(key.data()), k1 = load(key.data() + 8);
  std::uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  std::uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  std::size_t n = in.size(), i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t m = load(in.data() + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  std::uint8_t last[8] = {};
  // n - i < 8. An empty input may have no storage (data() null), and
  // memcpy from null is undefined even for zero octets.
  if (n > i) std::memcpy(last, in.data() + i, n - i);
  std::uint64_t b = load(last) | static_cast<std::uint64_t>(n & 0xFF) << 56;
  v3 ^= b;
  round();
  round();
  v0 ^= b;
  v2 ^= 0xFF;
  round();
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace herald::dns::detail
