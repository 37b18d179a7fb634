// Word characters for whole-word matching: letters, decimal digits and
// combining marks, by block ranges (word.cpp). A match is whole-word when the
// unit before its start and the unit after its end are not word characters
// (the start or end of the text counts as a boundary). Invalid bytes are not
// word characters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace herald::match::detail {

[[nodiscard]] bool is_word_cp(std::uint32_t cp);

[[nodiscard]] bool is_whole_word(std::string_view text, std::size_t start, std::size_t end);

}  // namespace herald::match::detail
