#include "core/random.hpp"

#include <algorithm>
#include <random>

namespace herald::random {

std::uint64_t entropy64() {
  std::random_device rd;
  // std::random_device yields 32 bits a call.
  return (std::uint64_t{rd()} << 32) ^ rd();
}

void fill_entropy(std::span<std::uint8_t> out) {
  std::random_device rd;
  // Safety: one octet of each 32-bit draw is kept; truncation is the point.
  for (auto& b : out) b = static_cast<std::uint8_t>(rd());
}

std::string hex_id(std::size_t digits) {
  thread_local std::mt19937_64 rng{entropy64()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(std::min<std::size_t>(digits, 16), '0');
  std::uint64_t v = rng();
  for (char& c : id) {
    c = kHex[v & 0xf];
    v >>= 4;
  }
  return id;
}

}  // namespace herald::random
