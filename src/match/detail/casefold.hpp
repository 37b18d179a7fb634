// Unicode simple case folding (CaseFolding.txt statuses C and S) for the
// blocks listed in casefold.cpp. A code point outside them folds to itself.
#pragma once

#include <cstdint>

namespace herald::match::detail {

[[nodiscard]] std::uint32_t fold_simple(std::uint32_t cp);

[[nodiscard]] inline std::uint8_t fold_ascii(std::uint8_t b) {
  return (b >= 'A' && b <= 'Z') ? static_cast<std::uint8_t>(b + 32) : b;
}

}  // namespace herald::match::detail
