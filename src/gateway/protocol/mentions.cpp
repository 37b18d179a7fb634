#include "gateway/protocol/mentions.hpp"

#include <algorithm>

namespace herald::gateway::protocol {
namespace {

bool name_byte(char c) {
  // Safety: a char read as its byte, to test its range.
  const auto b = static_cast<unsigned char>(c);
  return b >= 0x80 || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
         b == '_' || b == '-' || b == '.';
}

// Calls fn(name) for each mention in order until it returns false.
template <class Fn>
void each_mention(std::string_view text, Fn&& fn) {
  for (std::size_t at = text.find('@'); at != std::string_view::npos; at = text.find('@', at + 1)) {
    if (at > 0 && name_byte(text[at - 1])) continue;  // in a word: an address, not a mention
    std::size_t end = at + 1;
    while (end < text.size() && name_byte(text[end])) ++end;
    std::string_view name = text.substr(at + 1, end - at - 1);
    while (!name.empty() && name.back() == '.') name.remove_suffix(1);
    if (!name.empty() && !fn(name)) return;
  }
}

}  // namespace

std::vector<std::string_view> mentioned_users(std::string_view text, std::size_t max) {
  std::vector<std::string_view> out;
  if (max == 0) return out;
  each_mention(text, [&](std::string_view name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    return out.size() < max;
  });
  return out;
}

bool mentions(std::string_view text, std::string_view user) {
  bool found = false;
  each_mention(text, [&](std::string_view name) {
    found = name == user;
    return !found;
  });
  return found;
}

}  // namespace herald::gateway::protocol
