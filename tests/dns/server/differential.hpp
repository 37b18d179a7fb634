// One query asked of two servers the same way (the differential tests:
// NSD and Knot against heraldd): built once, sent over UDP or TCP as the
// case says, both answers decoded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "dns/presentation.hpp"
#include "dns_client.hpp"

namespace herald::dns::test {

struct Ask {
  std::string qname;
  RRType qtype;
  bool dnssec_ok;
  bool tcp;

  // "www.example.com. A +do tcp", for failure messages.
  std::string label() const {
    return qname + " " + type_to_text(qtype) + (dnssec_ok ? " +do" : "") + (tcp ? " tcp" : "");
  }
};

// The answers to one Ask; nullopt where a server gave none or one that
// does not decode.
struct BothAnswers {
  std::optional<Message> theirs, ours;
};

// The query (ID 4242, EDNS with `udp_size` and DO as asked) sent to the
// peer on `theirs` and to heraldd on `ours`.
inline BothAnswers ask_both(const Ask& a, std::uint16_t udp_size, std::uint16_t theirs,
                            std::uint16_t ours) {
  Message q;
  q.header.id = 4242;
  q.questions.push_back({Name::from_text(a.qname).value(), a.qtype, rrclass::IN});
  q.edns.emplace();
  q.edns->udp_size = udp_size;
  q.edns->dnssec_ok = a.dnssec_ok;
  const auto wire = encode(q).value();
  auto ask = [&](std::uint16_t port) -> std::optional<Message> {
    auto reply = a.tcp ? tcp_query(port, wire) : udp_query(port, wire);
    if (!reply) return std::nullopt;
    auto m = decode(*reply);
    if (!m) return std::nullopt;
    return std::move(m.value());
  };
  return {ask(theirs), ask(ours)};
}

}  // namespace herald::dns::test
