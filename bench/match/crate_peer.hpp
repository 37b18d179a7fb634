// The aho-corasick crate (0.7, Debian's librust-aho-corasick-dev) as a K2
// peer, through the C ABI of aho_corasick_peer/src/lib.rs: its DFA, with the
// smallest state id type the automaton fits. It has all three match kinds,
// so it is the peer of the leftmost kinds, which Hyperscan's literal API
// lacks. Bench-only: never linked into src/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "match/options.hpp"

struct herald_ac_peer;

namespace herald::bench {

class CratePeer {
 public:
  // Throws std::runtime_error when the crate cannot build the automaton.
  CratePeer(const std::vector<std::string>& dict, match::MatchKind kind);
  ~CratePeer();
  CratePeer(const CratePeer&) = delete;
  CratePeer& operator=(const CratePeer&) = delete;

  // Every occurrence (overlapping) or the leftmost non-overlapping matches.
  [[nodiscard]] std::uint64_t count(std::string_view text) const;
  // The crate's own count of its heap bytes (its heap_bytes()).
  [[nodiscard]] std::size_t memory_bytes() const;
  // The width of its state ids: 2, 4 or 8.
  [[nodiscard]] unsigned state_id_bytes() const;

 private:
  herald_ac_peer* p_ = nullptr;
};

}  // namespace herald::bench
