// BIND's $GENERATE: a range "start-stop[/step]", and templates where "$" is
// the current value, "${offset[,width[,base]]}" formats value+offset in
// base d, o, x, X, n or N (n/N: reversed nibbles, as for ip6.arpa), padded
// to `width`, and "\$" is a literal dollar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace herald::dns::detail {

struct GenerateRange {
  std::uint64_t start = 0, stop = 0, step = 1;
};

std::optional<GenerateRange> parse_generate_range(std::string_view s);
bool expand_generate(std::string_view tmpl, std::uint64_t value, std::string& out);

}  // namespace herald::dns::detail
