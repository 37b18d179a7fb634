// Fuzz target: zone-file text. Any byte string is parsed as a zone (origin
// example.com., no $INCLUDE: text input has no directory). It must never
// crash, hang or leak; every error names a line and says what was expected;
// and every record it accepts prints in a form that parses back to itself.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dns/presentation.hpp"
#include "dns/zone_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::dns;
  // Safety: bytes viewed as chars of the same size; the parser reads text
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ZoneOptions opt;
  opt.origin = Name::from_text("example.com.").value();
  opt.max_generate = 256;  // keep each input fast
  auto r = parse_zone_text(text, "fuzz.zone", opt);
  for (const auto& e : r.errors) {
    if (e.message.empty() || e.line == 0 || e.file != "fuzz.zone") std::abort();
  }
  std::string printed;
  for (const auto& rec : r.records) printed += record_to_text(rec) + "\n";
  auto again = parse_zone_text(printed, "printed.zone", opt);
  if (!again.ok() || again.records != r.records) std::abort();
  return 0;
}
