#include "support.hpp"

#include <sstream>

namespace herald::match::testing {

std::vector<Options> all_options() {
  std::vector<Options> out;
  for (const Preset p : kPresets) {
    for (const MatchKind k : kKinds) {
      for (const CaseFold f : kFolds) {
        for (const bool w : {false, true}) {
          out.push_back(Options{p, k, f, w});
          if (p == Preset::Speed) {
            // Every state but the root in a sparse row (hybrid_dfa.hpp).
            Options sparse{p, k, f, w};
            sparse.dense_table_bytes = 0;
            out.push_back(sparse);
          }
        }
      }
    }
  }
  return out;
}

std::string describe(const Options& o) {
  static const char* presets[] = {"auto", "speed", "balanced", "memory"};
  static const char* kinds[] = {"overlapping", "leftmost-first", "leftmost-longest"};
  static const char* folds[] = {"exact", "ascii", "unicode"};
  std::ostringstream s;
  s << presets[static_cast<int>(o.preset)] << '/' << kinds[static_cast<int>(o.kind)] << '/'
    << folds[static_cast<int>(o.fold)] << (o.whole_word ? "/word" : "");
  if (o.dense_table_bytes != Options{}.dense_table_bytes) {
    s << "/dense-table-bytes=" << o.dense_table_bytes;
  }
  return s.str();
}

std::string describe(const std::vector<Match>& ms) {
  std::ostringstream s;
  for (const Match& m : ms) s << '(' << m.pattern.value << ',' << m.start << ',' << m.end << ')';
  return s.str();
}

std::string utf8(std::uint32_t cp) {
  std::string s;
  // Safety (every cast below): each value is masked or shifted into one
  // byte's range.
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | cp >> 6);
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | cp >> 12);
    s += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | cp >> 18);
    s += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    s += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

std::string random_text(std::mt19937_64& rng, std::size_t pieces) {
  static const char* kPieces[] = {"a",
                                  "b",
                                  "A",
                                  "B",
                                  "c",
                                  " ",
                                  "1",
                                  "é",
                                  "É",
                                  "σ",
                                  "Σ",
                                  "ς",
                                  "д",
                                  "Д",
                                  "한",
                                  "국",
                                  "\xE2\x84\xAA",
                                  "k",
                                  "ſ",
                                  "s",
                                  "\xC3",
                                  "\x80",
                                  "\xE2\x84",
                                  "ab",
                                  "aa",
                                  "Ⱥ",
                                  "ⱥ",
                                  "ー",
                                  "؟",
                                  "\xED\xA0\x80"};
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kPieces) - 1);
  std::string out;
  for (std::size_t i = 0; i < pieces; ++i) out += kPieces[pick(rng)];
  return out;
}

}  // namespace herald::match::testing
