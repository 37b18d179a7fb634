// Text helpers any module may use: header-only and standard library only, so
// the engines (dns) include it without linking core (CMake target
// herald::text, as herald::result is for result.hpp).
#pragma once

#include <string_view>

namespace herald {

// `s` without the leading and trailing characters in `blanks` (spaces and
// tabs unless told otherwise: HTTP's optional whitespace, RFC 9110 5.6.3).
constexpr std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
  const std::size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

}  // namespace herald
