// A Unicode block, as Blocks.txt bounds and names it: the unit in which the
// hand-written tables (case folding, word characters) claim to be exact, so
// that each claim is one list a test can hold against Unicode's data files.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace herald::match::detail {

struct UnicodeBlock {
  std::uint32_t first;
  std::uint32_t last;
  std::string_view name;
};

// Whether `cp` lies in one of `blocks` (the tables are a few dozen blocks: a
// scan, used by the tests that hold each claim against Unicode's files).
constexpr bool in_blocks(std::span<const UnicodeBlock> blocks, std::uint32_t cp) {
  for (const UnicodeBlock& b : blocks) {
    if (cp >= b.first && cp <= b.last) return true;
  }
  return false;
}

}  // namespace herald::match::detail
