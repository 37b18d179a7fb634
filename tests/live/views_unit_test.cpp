// Each view's exact output for hand-picked inputs (the eyeball-im-util style):
// these pin the diff tables of docs/live.md.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "live/filter.hpp"
#include "live/filter_map.hpp"
#include "live/head.hpp"
#include "live/observable_vector.hpp"
#include "live/skip.hpp"
#include "live/sort.hpp"
#include "live/tail.hpp"
#include "live/view.hpp"
#include "test_support.hpp"

namespace herald::live {
namespace {

using C = VectorDiff<char>;
using CB = DiffBatch<char>;
using I = VectorDiff<int>;
using IB = DiffBatch<int>;

template <class V>
DiffBatch<typename V::output_type> take(Observed<V>& o) {
  DiffBatch<typename V::output_type> out;
  o.poll(out);
  return out;
}

TEST(SortView, IssueExampleAppends) {
  ObservableVector<char> v;
  Observed o(v.subscribe(), sort<char>());
  EXPECT_TRUE(o.values.empty());
  EXPECT_TRUE(take(o).empty());
  v.append({'d', 'b', 'e'});
  EXPECT_EQ(take(o), (CB{C::append({'b', 'd', 'e'})}));
  v.append({'f', 'g', 'a', 'c'});
  EXPECT_EQ(take(o), (CB{C::push_front('a'), C::insert(2, 'c'), C::append({'f', 'g'})}));
}

TEST(SortView, SetThatMovesIsRemoveThenInsert) {
  ObservableVector<char> v;
  v.append({'a', 'b', 'c'});
  Observed o(v.subscribe(), sort<char>());
  EXPECT_EQ(o.values, (std::vector<char>{'a', 'b', 'c'}));
  v.set(0, 'z');  // a -> z: front to back
  EXPECT_EQ(take(o), (CB{C::pop_front(), C::push_back('z')}));
  v.set(1, 'x');  // b -> x: between c and z
  EXPECT_EQ(take(o), (CB{C::pop_front(), C::insert(1, 'x')}));
  v.set(2, 'd');  // c -> d: stays first
  EXPECT_EQ(take(o), (CB{C::set(0, 'd')}));
  v.set(0, 'a');  // z -> a: back to front
  EXPECT_EQ(take(o), (CB{C::pop_back(), C::push_front('a')}));
}

TEST(SortView, InsertsRemovesAndEqualKeysKeepInputOrder) {
  // Pairs compared by the first member only; ties keep input order.
  using P = std::pair<int, char>;
  auto by_key = [](const P& a, const P& b) { return std::weak_order(a.first, b.first); };
  ObservableVector<P> v;
  v.append({{1, 'a'}, {2, 'b'}});
  Observed o(v.subscribe(), sort_by<P>(by_key));
  DiffBatch<P> out;
  v.push_front({2, 'z'});  // equal key to b, earlier input index: before b
  o.poll(out);
  EXPECT_EQ(out, (DiffBatch<P>{VectorDiff<P>::insert(1, {2, 'z'})}));
  out.clear();
  v.push_back({1, 'y'});  // equal to a, later: after a
  o.poll(out);
  EXPECT_EQ(out, (DiffBatch<P>{VectorDiff<P>::insert(1, {1, 'y'})}));
  out.clear();
  v.remove(0);   // {2,'z'} at output 2
  v.pop_back();  // {1,'y'} at output 1
  o.poll(out);
  EXPECT_EQ(out, (DiffBatch<P>{VectorDiff<P>::remove(2), VectorDiff<P>::remove(1)}));
}

TEST(SortView, TruncateRemovesFromWhereItemsSit) {
  ObservableVector<int> v;
  v.append({5, 1, 4, 2, 3});
  Observed o(v.subscribe(), sort<int>());
  EXPECT_EQ(o.values, (std::vector<int>{1, 2, 3, 4, 5}));
  v.truncate(2);  // drops 4, 2, 3 (output positions 3, 1, 2)
  EXPECT_EQ(take(o), (IB{I::remove(3), I::remove(2), I::remove(1)}));
  v.truncate(0);
  EXPECT_EQ(take(o), (IB{I::clear()}));
}

// The shallow-clone case of the Matrix SDK bug: the view holds handles whose
// target changes before the Set arrives. The view must still terminate and
// place the item right (it locates it by a checked search with a linear
// fallback, and never compares against the stale entry).
TEST(SortView, SetOfShallowHandleTerminatesAndPlacesCorrectly) {
  using H = std::shared_ptr<int>;
  auto by_target = [](const H& a, const H& b) { return std::weak_order(*a, *b); };
  std::vector<H> handles;
  for (int k : {10, 20, 30, 40, 50}) handles.push_back(std::make_shared<int>(k));
  ObservableVector<H> v;
  v.append(handles);
  Observed o(v.subscribe(), sort_by<H>(by_target));
  *handles[0] = 45;  // changed behind the view's back
  v.set(0, handles[0]);
  DiffBatch<H> out;
  o.poll(out);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], VectorDiff<H>::pop_front());
  EXPECT_EQ(out[1], VectorDiff<H>::insert(3, handles[0]));
  EXPECT_EQ(o.view().fallback_lookups(), 1U);
  std::vector<H> mirror = o.values;
  ASSERT_EQ(apply_batch(mirror, out).error, DiffError::ok);
  std::vector<int> keys;
  for (const H& h : mirror) keys.push_back(*h);
  EXPECT_EQ(keys, (std::vector<int>{20, 30, 40, 45, 50}));
}

TEST(SortView, ValuesNeverTakeTheFallback) {
  ObservableVector<int> v;
  v.append({3, 1, 2, 2, 5});
  Observed o(v.subscribe(), sort<int>());
  IB out;
  for (int i = 0; i < 50; ++i) v.set(static_cast<std::size_t>(i % 5), (i * 7) % 6);
  o.poll(out);
  EXPECT_EQ(o.view().fallback_lookups(), 0U);
}

TEST(FilterView, EachInputDiff) {
  ObservableVector<int> v;
  v.append({1, 2, 3, 4});
  auto even = [](int x) { return x % 2 == 0; };
  Observed o(v.subscribe(), filter<int>(even));
  EXPECT_EQ(o.values, (std::vector<int>{2, 4}));
  v.push_back(6);
  EXPECT_EQ(take(o), (IB{I::push_back(6)}));
  v.push_back(7);
  EXPECT_TRUE(take(o).empty());
  v.insert(1, 8);  // [1 8 2 3 4 6 7]
  EXPECT_EQ(take(o), (IB{I::insert(0, 8)}));
  v.set(0, 10);  // 1 -> 10 enters
  EXPECT_EQ(take(o), (IB{I::insert(0, 10)}));
  v.set(1, 9);  // 8 -> 9 leaves
  EXPECT_EQ(take(o), (IB{I::remove(1)}));
  v.set(2, 12);  // 2 -> 12 stays
  EXPECT_EQ(take(o), (IB{I::set(1, 12)}));
  v.set(1, 11);  // 9 -> 11 stays out
  EXPECT_TRUE(take(o).empty());
  v.remove(3);  // 3: not in the output
  EXPECT_TRUE(take(o).empty());
  v.truncate(3);  // [10 11 12 | 4 6 7]
  EXPECT_EQ(take(o), (IB{I::truncate(2)}));
  v.pop_front();
  v.pop_back();
  EXPECT_EQ(take(o), (IB{I::pop_front(), I::pop_back()}));
  v.append({1, 3});
  EXPECT_TRUE(take(o).empty());
  v.append({5, 14});
  EXPECT_EQ(take(o), (IB{I::append({14})}));
  v.reset({2, 3});
  EXPECT_EQ(take(o), (IB{I::reset({2})}));
  v.clear();
  EXPECT_EQ(take(o), (IB{I::clear()}));
}

TEST(FilterMapView, MapsKeptValues) {
  ObservableVector<int> v;
  v.append({-1, 2});
  auto positive_name = [](int x) -> std::optional<std::string> {
    if (x <= 0) return std::nullopt;
    return "#" + std::to_string(x);
  };
  Observed o(v.subscribe(), filter_map<int, std::string>(positive_name));
  EXPECT_EQ(o.values, (std::vector<std::string>{"#2"}));
  v.set(0, 5);
  v.set(1, 3);
  v.set(1, -3);
  v.push_front(-7);
  v.push_front(7);
  using S = VectorDiff<std::string>;
  DiffBatch<std::string> out;
  o.poll(out);
  EXPECT_EQ(out, (DiffBatch<std::string>{S::insert(0, "#5"), S::set(1, "#3"), S::remove(1),
                                         S::push_front("#7")}));
}

TEST(HeadView, WindowAndDynamicLimit) {
  ObservableVector<char> v;
  v.append({'a', 'b', 'c'});
  Observed o(v.subscribe(), head<char>(2));
  EXPECT_EQ(o.values, (std::vector<char>{'a', 'b'}));
  v.push_front('z');  // full window: last one out, then in at the front
  EXPECT_EQ(take(o), (CB{C::pop_back(), C::push_front('z')}));
  v.remove(0);  // the next one moves in
  EXPECT_EQ(take(o), (CB{C::remove(0), C::push_back('b')}));
  v.set(2, 'q');  // beyond the window
  EXPECT_TRUE(take(o).empty());
  CB out;
  o.view().set_limit(4, out);  // raising: Append of what now fits
  EXPECT_EQ(out, (CB{C::append({'q'})}));
  out.clear();
  o.view().set_limit(10, out);  // nothing more to show
  EXPECT_TRUE(out.empty());
  o.view().set_limit(1, out);  // lowering: Truncate
  EXPECT_EQ(out, (CB{C::truncate(1)}));
  v.insert(1, 'x');
  EXPECT_TRUE(take(o).empty());
  v.append({'m'});
  EXPECT_TRUE(take(o).empty());
  out.clear();
  o.view().set_limit(0, out);
  EXPECT_EQ(out, (CB{C::truncate(0)}));
  v.clear();
  EXPECT_TRUE(take(o).empty());  // the output was already empty
}

TEST(TailView, WindowAndDynamicLimit) {
  ObservableVector<char> v;
  v.append({'a', 'b', 'c'});
  Observed o(v.subscribe(), tail<char>(2));
  EXPECT_EQ(o.values, (std::vector<char>{'b', 'c'}));
  v.push_back('d');
  EXPECT_EQ(take(o), (CB{C::pop_front(), C::push_back('d')}));
  v.push_front('z');  // before the window: invisible
  EXPECT_TRUE(take(o).empty());
  v.remove(4);  // [z a b c d] -> d leaves, b comes back in front
  EXPECT_EQ(take(o), (CB{C::remove(1), C::push_front('b')}));
  CB out;
  o.view().set_limit(3, out);
  EXPECT_EQ(out, (CB{C::push_front('a')}));
  out.clear();
  o.view().set_limit(1, out);
  EXPECT_EQ(out, (CB{C::pop_front(), C::pop_front()}));
  v.append({'e', 'f'});
  EXPECT_EQ(take(o), (CB{C::clear(), C::append({'f'})}));
}

TEST(TailView, TruncateIntoAndPastTheWindow) {
  ObservableVector<char> v;
  v.append({'a', 'b', 'c', 'd', 'e'});
  Observed o(v.subscribe(), tail<char>(2));
  EXPECT_EQ(o.values, (std::vector<char>{'d', 'e'}));
  v.truncate(4);  // e goes, c comes in front
  EXPECT_EQ(take(o), (CB{C::truncate(1), C::push_front('c')}));
  v.truncate(1);  // every shown item goes: cut at the back, then the new window
  EXPECT_EQ(take(o), (CB{C::truncate(0), C::append({'a'})}));
  CB out;
  o.view().set_limit(0, out);  // the front passes everything
  EXPECT_EQ(out, (CB{C::clear()}));
  v.append({'b', 'c'});
  EXPECT_TRUE(take(o).empty());
  out.clear();
  o.view().set_limit(2, out);  // an empty output grows from the end: in front
  EXPECT_EQ(out, (CB{C::push_front('c'), C::push_front('b')}));
}

TEST(HeadView, GrowingFromEmptyIsOneAppend) {
  ObservableVector<char> v;
  v.append({'a', 'b', 'c'});
  Observed o(v.subscribe(), head<char>(0));
  EXPECT_TRUE(o.values.empty());
  v.push_front('z');
  EXPECT_TRUE(take(o).empty());
  CB out;
  o.view().set_limit(2, out);
  EXPECT_EQ(out, (CB{C::append({'z', 'a'})}));
}

TEST(SkipView, WindowAndDynamicCount) {
  ObservableVector<char> v;
  v.append({'a', 'b', 'c'});
  Observed o(v.subscribe(), skip<char>(1));
  EXPECT_EQ(o.values, (std::vector<char>{'b', 'c'}));
  v.push_front('z');  // a leaves the prefix
  EXPECT_EQ(take(o), (CB{C::push_front('a')}));
  v.pop_front();
  EXPECT_EQ(take(o), (CB{C::pop_front()}));
  v.set(0, 'y');  // in the prefix
  EXPECT_TRUE(take(o).empty());
  v.set(2, 'w');
  EXPECT_EQ(take(o), (CB{C::set(1, 'w')}));
  CB out;
  o.view().set_count(0, out);
  EXPECT_EQ(out, (CB{C::push_front('y')}));
  out.clear();
  o.view().set_count(3, out);
  EXPECT_EQ(out, (CB{C::clear()}));
  v.append({'p', 'q'});
  EXPECT_EQ(take(o), (CB{C::append({'p', 'q'})}));
}

TEST(Composition, FilterSortHead) {
  ObservableVector<int> v;
  v.append({9, 4, 7, 2, 8});
  auto even = [](int x) { return x % 2 == 0; };
  Observed o(v.subscribe(), filter<int>(even) | sort<int>() | head<int>(2));
  EXPECT_EQ(o.values, (std::vector<int>{2, 4}));
  v.set(0, 0);  // 9 -> 0: enters the filter, sorts first, pushes 4 out
  EXPECT_EQ(take(o), (IB{I::pop_back(), I::push_front(0)}));
  v.set(3, 11);  // 2 leaves the filter: 4 comes back
  EXPECT_EQ(take(o), (IB{I::remove(1), I::push_back(4)}));
  IB out;
  o.view().second().set_limit(3, out);
  EXPECT_EQ(out, (IB{I::append({8})}));
}

}  // namespace
}  // namespace herald::live
