// Hyperscan (libhs, Debian's libhyperscan-dev) as a K2 peer: a literal
// database over the dictionary (hs_compile_lit_multi, block mode, no flags),
// which reports every occurrence of every literal: the overlapping kind's
// semantics. Hyperscan's literal API has no leftmost mode. Bench-only: never
// linked into src/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace herald::bench {

class HyperscanPeer {
 public:
  // Throws std::runtime_error with Hyperscan's message when the database
  // does not compile.
  explicit HyperscanPeer(const std::vector<std::string>& dict);
  ~HyperscanPeer();
  HyperscanPeer(const HyperscanPeer&) = delete;
  HyperscanPeer& operator=(const HyperscanPeer&) = delete;

  // Occurrences in `text`.
  [[nodiscard]] std::uint64_t count(std::string_view text) const;
  // hs_database_size: the compiled database's bytes.
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;
};

}  // namespace herald::bench
