// A Unicode block, as Blocks.txt bounds and names it: the unit in which the
// hand-written tables (case folding, word characters) claim to be exact, so
// that each claim is one list a test can hold against Unicode's data files.
#pragma once

#include <cstdint>
#include <string_view>

namespace herald::match::detail {

struct UnicodeBlock {
  std::uint32_t first;
  std::uint32_t last;
  std::string_view name;
};

}  // namespace herald::match::detail
