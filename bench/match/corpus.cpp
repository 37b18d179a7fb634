#include "corpus.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>

namespace herald::bench {
namespace {

std::vector<std::string> english_words() {
  std::ifstream in("/usr/share/dict/words");
  if (!in) {
    throw std::runtime_error(
        "cannot read /usr/share/dict/words: install wamerican (scripts/setup.sh does)");
  }
  std::vector<std::string> out;
  for (std::string w; std::getline(in, w);) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

std::vector<std::string> korean_words() {
  // Frequent syllables of Korean text (a fixed list; repeats weigh the draw).
  static const char* kSyl =
      "이다는의에을를가고하한지기서도로사으어리자나그대인수시정부전보아제상"
      "해일아니만요들중주무장경내소동성원화국민오연구문생학실신방관조여라계"
      "위공개우진선발교유당회명면비치적분기모물회후간체비전결반여세작형터용"
      "건목행설상력영성표통확시육권시세차본회람합업마것년말들사회운동";
  std::vector<std::string> syl;
  const std::string all(kSyl);
  for (std::size_t i = 0; i + 3 <= all.size(); i += 3) syl.push_back(all.substr(i, 3));
  std::mt19937_64 rng(1);
  std::vector<std::string> out;
  std::set<std::string> seen;
  while (out.size() < 120'000) {
    std::string w;
    const int n = 2 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) w += syl[rng() % syl.size()];
    if (seen.insert(w).second) out.push_back(w);
  }
  return out;
}

Corpus make_corpus(std::vector<std::string> words, std::uint64_t seed, std::size_t bytes) {
  Corpus c;
  c.words = std::move(words);
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(c.words.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  while (c.haystack.size() < bytes) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto rank = static_cast<std::size_t>(std::pow(static_cast<double>(order.size()), u)) - 1;
    c.haystack += c.words[order[std::min(rank, order.size() - 1)]];
    c.haystack += ' ';
  }
  for (const int n : {1000, 10000, 100000}) {
    std::vector<std::string> sample = c.words;
    std::mt19937_64 pick(seed + static_cast<std::uint64_t>(n));
    std::shuffle(sample.begin(), sample.end(), pick);
    sample.resize(std::min<std::size_t>(static_cast<std::size_t>(n), sample.size()));
    c.dicts[n] = std::move(sample);
  }
  return c;
}

}  // namespace

const Corpus& k2_corpus(bool korean, std::size_t haystack_bytes) {
  if (korean) {
    static const Corpus ko = make_corpus(korean_words(), 43, haystack_bytes);
    return ko;
  }
  static const Corpus en = make_corpus(english_words(), 42, haystack_bytes);
  return en;
}

}  // namespace herald::bench
