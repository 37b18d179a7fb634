// The obvious twin of detail/compression.hpp: a map from each lowercased
// suffix string to its offset, as dns_erlang started with. Tests check that
// the real map writes the same octets; the benchmark measures both. Never
// used on the serving path.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "dns/detail/ascii.hpp"
#include "dns/name.hpp"

namespace herald::dns::detail {

struct NaiveCompressor {
  std::unordered_map<std::string, std::uint16_t> map;

  // Appends `n` to `out`, pointing at the longest suffix written before.
  void write_name(std::vector<std::uint8_t>& out, const Name& n) {
    auto w = n.wire();
    std::size_t pos = 0;
    while (w[pos] != 0) {
      std::string key;
      for (std::size_t i = pos; i < w.size(); ++i) key += static_cast<char>(fold_byte(w[i]));
      auto it = map.find(key);
      if (it != map.end()) {
        out.push_back(static_cast<std::uint8_t>(0xC0 | it->second >> 8));
        out.push_back(static_cast<std::uint8_t>(it->second));
        return;
      }
      // Offsets past 0x3FFF cannot be pointed at (14-bit pointers).
      if (out.size() < 0x4000) map.emplace(std::move(key), static_cast<std::uint16_t>(out.size()));
      out.insert(out.end(), w.begin() + static_cast<std::ptrdiff_t>(pos),
                 w.begin() + static_cast<std::ptrdiff_t>(pos) + 1 + w[pos]);
      pos += 1u + w[pos];
    }
    out.push_back(0);
  }
};

}  // namespace herald::dns::detail
