#include "gateway/client/client_id.hpp"

#include <cstdint>
#include <random>

namespace herald::gateway {

std::string random_client_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(16, '0');
  std::uint64_t v = rng();
  for (char& c : id) {
    c = kHex[v & 0xf];
    v >>= 4;
  }
  return id;
}

}  // namespace herald::gateway
