// Fuzz target: DNS message decoding. Any byte string goes through decode and
// decode_query. Neither may crash, read out of bounds (ASan), hang or leak;
// a refusal must come with a classified error inside the input. What decodes
// must re-encode, and:
//  - without compression, decode(encode(m)) == m exactly;
//  - with compression, it decodes to the same shape (names may take the case
//    of an earlier, case-insensitively equal suffix, by design);
//  - every record's presentation form parses back to the same RDATA.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "dns/decoder.hpp"
#include "dns/detail/zone_lexer.hpp"
#include "dns/encoder.hpp"
#include "dns/rdata.hpp"

namespace {

using namespace herald::dns;

void check_text_round_trip(const Record& rr) {
  std::string text;
  rdata_to_text(rr.type, rr.rdata, text);
  auto toks = detail::ZoneLexer::first_line(text);
  if (!toks) std::abort();
  auto back = rdata_from_text(rr.type, *toks, Name());
  if (!back || back.value() != rr.rdata) std::abort();
}

void check(const Message& m) {
  auto plain = encode(m, {65535, false});
  if (!plain) return;  // e.g. more than 65535 octets once decompressed
  auto again = decode(plain.value());
  if (!again) std::abort();
  Message expect = m;
  expect.sync_counts();
  Message got = again.value();
  got.sync_counts();
  if (!(got == expect)) std::abort();
  auto compressed = encode(m, {65535, true});
  if (!compressed || compressed->size() > plain->size()) std::abort();
  auto c = decode(compressed.value());
  if (!c || c->answers.size() != m.answers.size() || c->additional.size() != m.additional.size())
    std::abort();
  for (const auto* section : {&m.answers, &m.authority, &m.additional}) {
    for (const Record& rr : *section) check_text_round_trip(rr);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> wire(data, size);
  for (bool query : {false, true}) {
    auto m = query ? decode_query(wire) : decode(wire);
    if (m) {
      check(m.value());
    } else {
      if (m.error().offset > size || error_message(m.error().code).empty()) std::abort();
      if (disposition(m.error().code) == Disposition::answer) std::abort();
    }
  }
  return 0;
}
