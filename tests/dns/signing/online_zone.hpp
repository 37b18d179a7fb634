// The online-signing test zone (data/online/online.example.zone) under any
// of the origins its committed keys belong to (online., ed25519., split.):
// one zone file serves every key.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

namespace herald::dns::test {

inline const std::string kOnlineData = HERALD_DNS_TEST_DATA "/online";

// The zone file's text with its origin renamed to `zone` ("x.example.").
inline std::string online_zone_text(const std::string& zone) {
  std::ifstream in(kOnlineData + "/online.example.zone");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string from[] = {"online.example.", "Online.Example."};
  for (const std::string& f : from) {
    for (std::size_t at = 0; (at = text.find(f, at)) != std::string::npos; at += zone.size()) {
      text.replace(at, f.size(), zone);
    }
  }
  return text;
}

}  // namespace herald::dns::test
