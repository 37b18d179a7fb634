// Differential fuzz target for the live views: the input bytes are a program
// of mutations (and limit changes) on an ObservableVector; after each one,
// every view's diffs applied to its mirror must equal the view recomputed
// from the source (filter -> sort -> head, sort -> skip -> tail, filter_map).
// Any mismatch or malformed diff aborts, which libFuzzer reports as a crash.
// Not a parser, but the space of diff sequences is what the property tests
// sample; the fuzzer searches it with coverage feedback.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "live/filter.hpp"
#include "live/filter_map.hpp"
#include "live/head.hpp"
#include "live/observable_vector.hpp"
#include "live/skip.hpp"
#include "live/sort.hpp"
#include "live/tail.hpp"
#include "live/view.hpp"

namespace {

using herald::live::DiffBatch;
using herald::live::DiffError;

// Low nibble: key (sorted, filtered); high nibble: payload.
bool keep(std::uint8_t v) {
  return (v & 0x0F) % 3 != 0;
}
std::optional<int> keep_map(std::uint8_t v) {
  if ((v & 0x0F) % 4 == 0) return std::nullopt;
  return v * 2;
}
struct ByKey {
  std::weak_ordering operator()(std::uint8_t a, std::uint8_t b) const {
    return std::weak_order(a & 0x0F, b & 0x0F);
  }
};

std::vector<std::uint8_t> sorted(std::vector<std::uint8_t> v) {
  std::stable_sort(v.begin(), v.end(),
                   [](std::uint8_t a, std::uint8_t b) { return (a & 0x0F) < (b & 0x0F); });
  return v;
}

template <class T>
void check(std::vector<T>& mirror, const DiffBatch<T>& out, const std::vector<T>& expected,
           const char* what) {
  if (apply_batch(mirror, out).error != DiffError::ok || mirror != expected) {
    std::fprintf(stderr, "live_views: %s diverged from recomputation\n", what);
    std::abort();
  }
}

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] bool done() const { return at_ >= size_; }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::live;
  Reader in(data, size);
  ObservableVector<std::uint8_t> source(1 + in.byte() % 8);  // small: lag resets happen
  Observed a(source.subscribe(),
             filter<std::uint8_t>(keep) | sort_by<std::uint8_t>(ByKey{}) | head<std::uint8_t>(4));
  Observed b(source.subscribe(),
             sort_by<std::uint8_t>(ByKey{}) | skip<std::uint8_t>(2) | tail<std::uint8_t>(5));
  Observed c(source.subscribe(), filter_map<std::uint8_t, int>(keep_map));
  std::vector<std::uint8_t> ma = a.values;
  std::vector<std::uint8_t> mb = b.values;
  std::vector<int> mc = c.values;
  DiffBatch<std::uint8_t> oa;
  DiffBatch<std::uint8_t> ob;
  DiffBatch<int> oc;
  int steps = 0;
  while (!in.done() && steps++ < 2000) {
    const std::uint8_t op = in.byte();
    const std::size_t n = source.size();
    const std::uint8_t v = in.byte();
    const std::size_t i = n == 0 ? 0 : in.byte() % (n + 1);
    oa.clear();
    ob.clear();
    oc.clear();
    switch (op % 14) {
      case 0:
        source.push_back(v);
        break;
      case 1:
        source.push_front(v);
        break;
      case 2:
        (void)source.try_insert(i, v);
        break;
      case 3:
        (void)source.try_set(i, v);
        break;
      case 4:
        (void)source.try_remove(i);
        break;
      case 5:
        source.pop_front();
        break;
      case 6:
        source.pop_back();
        break;
      case 7:
        source.append(std::vector<std::uint8_t>(v % 9, in.byte()));
        break;
      case 8:
        source.truncate(i);
        break;
      case 9:
        source.clear();
        break;
      case 10:
        source.reset(std::vector<std::uint8_t>(v % 7, in.byte()));
        break;
      case 11: {
        auto t = source.transaction();
        for (int k = v % 6; k > 0; --k) {
          const std::uint8_t w = in.byte();
          if (w % 3 == 0) (void)t.try_set(t.size() == 0 ? 0 : w % t.size(), in.byte());
          if (w % 3 == 1) t.push_front(in.byte());
          if (w % 3 == 2) (void)t.try_remove(t.size() == 0 ? 0 : w % t.size());
        }
        t.commit();
        break;
      }
      case 12:
        a.poll(oa);
        b.poll(ob);
        a.view().second().set_limit(v % 9, oa);
        b.view().second().set_limit(v % 7, ob);
        break;
      default:
        a.poll(oa);
        b.poll(ob);
        b.view().update_first(
            [&](auto& sort_skip, auto& mid) { sort_skip.second().set_count(v % 5, mid); }, ob);
        break;
    }
    a.poll(oa);
    b.poll(ob);
    c.poll(oc);
    std::vector<std::uint8_t> f;
    std::copy_if(source.values().begin(), source.values().end(), std::back_inserter(f), keep);
    f = sorted(f);
    if (f.size() > a.view().second().limit()) f.resize(a.view().second().limit());
    check(ma, oa, f, "filter|sort|head");
    std::vector<std::uint8_t> s = sorted(source.values());
    const std::size_t skip_n = std::min(b.view().first().second().count(), s.size());
    s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(skip_n));
    const std::size_t tail_n = std::min(b.view().second().limit(), s.size());
    s.erase(s.begin(), s.end() - static_cast<std::ptrdiff_t>(tail_n));
    check(mb, ob, s, "sort|skip|tail");
    std::vector<int> m;
    for (std::uint8_t x : source.values()) {
      if (auto r = keep_map(x)) m.push_back(*r);
    }
    check(mc, oc, m, "filter_map");
  }
  return 0;
}
