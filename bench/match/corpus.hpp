// The K2 corpora of docs/benchmarks.md, shared by bench_match (Google
// Benchmark, every preset and kind) and bench_match_k2 (the table against
// both peers).
//
// English: dictionaries of 1,000 / 10,000 / 100,000 words sampled with a
// fixed seed from /usr/share/dict/words (Debian's wamerican); a haystack of
// at least 32 MiB of words drawn with a fixed seed from the same list (a
// Zipf-like draw, so most of the text is frequent words, as in prose),
// separated by spaces.
// Korean: there is no Korean word list among Debian's dictionaries, so words
// of 2-4 syllables are generated with a fixed seed from a fixed list of ~150
// frequent Hangul syllables (three UTF-8 octets each); dictionaries and
// haystack are drawn from those words the same way.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace herald::bench {

struct Corpus {
  std::vector<std::string> words;  // the vocabulary
  std::string haystack;
  std::map<int, std::vector<std::string>> dicts;  // by size: 1,000 / 10,000 / 100,000
};

// Built once per process and language. `haystack_bytes` applies to the first
// call only (the corpus is then cached); 32 MiB is the documented size.
const Corpus& k2_corpus(bool korean, std::size_t haystack_bytes = std::size_t{32} << 20);

}  // namespace herald::bench
