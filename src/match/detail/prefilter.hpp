// A prefilter for the start state. While the automaton sits in its start
// state, only a byte that begins some (folded) keyword can leave it, so the
// scan may jump straight to the next such byte. Worth it only when those
// bytes are rare in text: with one start byte (or one ASCII letter under
// ASCII folding) the jump is memchr or a single compare per byte. With more
// start bytes the prefilter is off (a byte loop costs what the DFA step
// costs).
//
// Measured on K1 (keyword0..keyword999, 640-byte text, find into a reused
// buffer, dev-2c, 2026-11-29): Speed 1,480 -> 618 ns/op, Balanced 2,958 ->
// 1,239 ns/op, MemoryEfficient 2,975 -> 1,182 ns/op. Kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace herald::match::detail {

class StartPrefilter {
 public:
  StartPrefilter() = default;
  // folded: the keywords as the automaton sees them; ascii_fold: the text's
  // upper-case ASCII letters also lead to their lower-case class.
  StartPrefilter(const std::vector<std::string>& folded, bool ascii_fold);

  [[nodiscard]] bool enabled() const { return mode_ != Mode::kOff; }

  // The first position in [i, n) holding a start byte, or n.
  [[nodiscard]] std::size_t next(const std::uint8_t* p, std::size_t i, std::size_t n) const {
    if (mode_ == Mode::kMemchr) {
      // Safety: memchr reads p[i, n), within the text.
      const void* hit = std::memchr(p + i, byte_, n - i);
      return hit ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - p) : n;
    }
    // kLetter: byte_ is a lower-case ASCII letter; | 0x20 maps its upper
    // case onto it and no other byte onto it.
    while (i < n && (p[i] | 0x20) != byte_) ++i;
    return i;
  }

 private:
  enum class Mode : std::uint8_t { kOff, kMemchr, kLetter };
  Mode mode_ = Mode::kOff;
  std::uint8_t byte_ = 0;
};

}  // namespace herald::match::detail
