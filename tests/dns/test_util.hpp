// Helpers shared by the dns tests.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "dns/detail/text_codecs.hpp"
#include "dns/detail/zone_lexer.hpp"
#include "dns/encoder.hpp"
#include "dns/message.hpp"
#include "dns/name.hpp"
#include "dns/presentation.hpp"
#include "dns/rdata.hpp"
#include "dns/record.hpp"
#include "support/temp_dir.hpp"

namespace herald::dns::test {

using herald::test::TempDir;

// Hex with spaces allowed (for readable tables).
inline std::vector<std::uint8_t> unhex(std::string s) {
  std::string clean;
  for (char c : s) {
    if (c != ' ') clean += c;
  }
  std::vector<std::uint8_t> v;
  EXPECT_TRUE(detail::hex_decode(clean, v)) << s;
  return v;
}

inline std::string hex(std::span<const std::uint8_t> s) {
  std::string out;
  detail::hex_encode(s, out);
  return out;
}

inline Name name(std::string_view text) {
  auto n = Name::from_text(text);
  EXPECT_TRUE(n) << text;
  return n ? n.value() : Name();
}

// A record from presentation parts, e.g. rr("www.example.com.", "A", "192.0.2.1").
inline Record rr(std::string_view owner, std::string_view type, const std::string& rdata,
                 std::uint32_t ttl = 3600) {
  Record r;
  r.owner = name(owner);
  r.type = type_from_text(type).value();
  r.ttl = ttl;
  auto toks = detail::ZoneLexer::first_line(rdata);
  EXPECT_TRUE(toks) << rdata << ": " << (toks ? "" : toks.error().message);
  auto w = rdata_from_text(r.type, toks ? *toks : std::vector<TextToken>{}, Name());
  EXPECT_TRUE(w) << rdata << ": " << (w ? "" : w.error().to_string());
  if (w) r.rdata = w.value();
  return r;
}

// A query as the tests send it: one question, RD set, ID 0x1234.
struct Query {
  std::string qname;
  RRType qtype;
  bool edns = true;
  bool dnssec_ok = false;
  std::uint16_t udp_size = 1232;
  std::uint8_t version = 0;
  std::uint16_t z = 0;  // the EDNS flags after DO (0x4000: RFC 9824's CO)
};

inline std::vector<std::uint8_t> query_wire(const Query& q) {
  Message m;
  m.header.id = 0x1234;
  m.header.rd = true;
  m.questions.push_back({name(q.qname), q.qtype, rrclass::IN});
  if (q.edns) {
    Edns e;
    e.udp_size = q.udp_size;
    e.dnssec_ok = q.dnssec_ok;
    e.version = q.version;
    e.z = q.z;
    m.edns = e;
  }
  return encode(m).value();
}

}  // namespace herald::dns::test

namespace herald::dns {
// GoogleTest prints messages and records in presentation form.
inline void PrintTo(const Message& m, std::ostream* os) {
  *os << "\n" << message_to_text(m);
}
inline void PrintTo(const Record& r, std::ostream* os) {
  *os << record_to_text(r);
}
}  // namespace herald::dns
