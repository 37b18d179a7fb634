// The online-signing test zone (data/online/online.example.zone) under any
// of the origins its committed keys belong to (online., ed25519., split.):
// one zone file serves every key. And a committed key as a trust anchor for
// BIND's delv.
#pragma once

#include <fstream>
#include <iterator>
#include <sstream>
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

// The public half of a committed key (data/online/keys/<key_file>, a .key)
// as delv's `-a` file wants it: trust-anchors { zone static-key ... };
inline std::string delv_anchor(const std::string& zone, const std::string& key_file) {
  std::ifstream in(kOnlineData + "/keys/" + key_file);
  std::string line;
  while (std::getline(in, line) && (line.empty() || line[0] == ';')) {
  }
  // "<zone> IN DNSKEY <flags> 3 <alg> <base64> ;{id = ...}"
  std::istringstream fields(line.substr(0, line.find(';')));
  std::string owner, cls, type, flags, protocol, alg, key;
  fields >> owner >> cls >> type >> flags >> protocol >> alg >> key;
  return "trust-anchors { " + zone + " static-key " + flags + " " + protocol + " " + alg + " \"" +
         key + "\"; };\n";
}

}  // namespace herald::dns::test
