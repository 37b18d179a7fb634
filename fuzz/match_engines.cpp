// Differential fuzz target for the match engine: the input builds a
// dictionary and a haystack, and every preset (Speed DFA, flat and with
// sparse rows, Balanced and MemoryEfficient NFAs) must return exactly the naive reference's
// matches; find_parallel and stream search must equal find; contains must agree. Any difference
// aborts, which libFuzzer reports as a crash. On a long repeat of the
// haystack, Speed's interleaved lanes must equal its single walk.
//
// Input: byte 0 = options (bits 0-1 kind, 2-3 fold, 4 whole word), byte 1 =
// chunk size for the stream/parallel checks (bits 0-5) and the long-text
// check (bits 6-7 both set); then keywords separated by
// '\n' up to the first 0x00 byte; the rest is the haystack. Sizes are
// capped so the quadratic reference stays fast.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "match/matcher.hpp"
#include "match/naive.hpp"

namespace {

using herald::match::CaseFold;
using herald::match::Match;
using herald::match::Matcher;
using herald::match::MatchKind;
using herald::match::NaiveMatcher;
using herald::match::Options;
using herald::match::Preset;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "match_engines: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  Options o;
  o.kind = static_cast<MatchKind>((data[0] & 3) % 3);
  o.fold = static_cast<CaseFold>(((data[0] >> 2) & 3) % 3);
  o.whole_word = (data[0] & 16) != 0;
  const std::size_t chunk = 1 + data[1] % 64;
  // Safety: the fuzzer's bytes viewed as chars; the view lives in this call.
  const std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  const std::size_t zero = rest.find('\0');
  if (zero == std::string_view::npos) return 0;
  std::vector<std::string> words;
  std::string_view dict = rest.substr(0, zero);
  while (!dict.empty() && words.size() < 32) {
    const std::size_t nl = dict.find('\n');
    const std::string_view w = dict.substr(0, nl);
    if (!w.empty() && w.size() <= 32) words.emplace_back(w);
    if (nl == std::string_view::npos) break;
    dict.remove_prefix(nl + 1);
  }
  if (words.empty()) return 0;
  const std::string_view text = rest.substr(zero + 1, 1024);
  // One input in four (byte 1's top bits, which the chunk size does not
  // use) is also searched repeated past two 64 KiB blocks, Speed's
  // interleaved lanes against its single walk: the lanes' second block
  // takes the loop that the first block's match density picks, Selecting
  // where matches are dense (detail/search.hpp, LaneLoop).
  std::string long_text;
  if ((data[1] & 0xC0) == 0xC0 && !text.empty()) {
    while (long_text.size() < (160u << 10)) long_text += text;
  }

  std::vector<Match> want;
  bool have_want = false;
  // Speed twice: with its default table, flat for dictionaries this small,
  // and with a budget of 0, every state but the root in a sparse row.
  const std::size_t flat = Options{}.dense_table_bytes;
  const std::pair<Preset, std::size_t> engines[] = {{Preset::Speed, flat},
                                                    {Preset::Speed, 0},
                                                    {Preset::Balanced, flat},
                                                    {Preset::MemoryEfficient, flat}};
  for (const auto& [preset, table_bytes] : engines) {
    o.preset = preset;
    o.dense_table_bytes = table_bytes;
    auto m = Matcher::try_build(std::span<const std::string>(words), o);
    if (!m) {
      if (m.error() != herald::match::Error::kInvalidUtf8Keyword) fail("unexpected build error");
      return 0;
    }
    if (!have_want) {
      want = NaiveMatcher(words, o).find(text);
      have_want = true;
    }
    if (m->find(text) != want) fail("find differs from the naive reference");
    if (m->contains(text) != !want.empty()) fail("contains differs");
    if (m->find_parallel(text, 3, chunk) != want) fail("find_parallel differs from find");
    herald::match::StreamSearcher s(*m);
    std::vector<Match> got;
    for (std::size_t i = 0; i < text.size(); i += chunk) s.feed(text.substr(i, chunk), got);
    s.finish(got);
    if (got != want) fail("stream search differs from find");
    if (preset == Preset::Speed && !long_text.empty()) {
      Options plain = o;
      plain.interleave = false;
      const auto twin = Matcher::try_build(std::span<const std::string>(words), plain);
      if (!twin) fail("the single-walk twin did not build");
      if (m->find(long_text) != twin->find(long_text)) fail("lanes differ from the single walk");
    }
  }
  return 0;
}
