#include "match/detail/prefilter.hpp"

#include "match/detail/casefold.hpp"

namespace herald::match::detail {

StartPrefilter::StartPrefilter(const std::vector<std::string>& folded, bool ascii_fold) {
  if (folded.empty()) return;
  // Safety: unsigned view of a keyword's first byte (keywords are non-empty).
  const auto first = static_cast<std::uint8_t>(folded[0][0]);
  for (const auto& k : folded) {
    if (static_cast<std::uint8_t>(k[0]) != first) return;  // several start bytes: off
  }
  byte_ = first;
  mode_ = (ascii_fold && first >= 'a' && first <= 'z') ? Mode::kLetter : Mode::kMemchr;
}

}  // namespace herald::match::detail
