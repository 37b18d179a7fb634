#include "live/diff.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"

namespace herald::live {
namespace {

using D = VectorDiff<int>;

struct Case {
  std::string name;
  std::vector<int> before;
  D diff;
  DiffError error;
  std::vector<int> after;  // == before when error != ok
};

TEST(Diff, ApplyEveryOperation) {
  const std::vector<Case> cases = {
      {"append", {1}, D::append({2, 3}), DiffError::ok, {1, 2, 3}},
      {"append_nothing", {1}, D::append({}), DiffError::ok, {1}},
      {"clear", {1, 2}, D::clear(), DiffError::ok, {}},
      {"clear_empty", {}, D::clear(), DiffError::ok, {}},
      {"push_front", {1}, D::push_front(0), DiffError::ok, {0, 1}},
      {"push_back", {1}, D::push_back(2), DiffError::ok, {1, 2}},
      {"pop_front", {1, 2}, D::pop_front(), DiffError::ok, {2}},
      {"pop_front_empty", {}, D::pop_front(), DiffError::empty, {}},
      {"pop_back", {1, 2}, D::pop_back(), DiffError::ok, {1}},
      {"pop_back_empty", {}, D::pop_back(), DiffError::empty, {}},
      {"insert_middle", {1, 3}, D::insert(1, 2), DiffError::ok, {1, 2, 3}},
      {"insert_end", {1}, D::insert(1, 2), DiffError::ok, {1, 2}},
      {"insert_past_end", {1}, D::insert(2, 2), DiffError::index_out_of_range, {1}},
      {"set", {1, 2}, D::set(1, 5), DiffError::ok, {1, 5}},
      {"set_past_end", {1}, D::set(1, 5), DiffError::index_out_of_range, {1}},
      {"remove", {1, 2, 3}, D::remove(1), DiffError::ok, {1, 3}},
      {"remove_past_end", {1}, D::remove(1), DiffError::index_out_of_range, {1}},
      {"truncate", {1, 2, 3}, D::truncate(1), DiffError::ok, {1}},
      {"truncate_same", {1, 2}, D::truncate(2), DiffError::ok, {1, 2}},
      {"truncate_grows", {1}, D::truncate(2), DiffError::truncate_grows, {1}},
      {"reset", {1, 2}, D::reset({7}), DiffError::ok, {7}},
  };
  std::vector<std::string> names;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    for (const std::string& n : names) ASSERT_NE(n, c.name) << "duplicate case name";
    names.push_back(c.name);
    std::vector<int> v = c.before;
    const DiffError e = apply_diff(v, c.diff);
    EXPECT_EQ(e, c.error) << message(e);
    EXPECT_EQ(v, c.after);
  }
}

TEST(Diff, BatchStopsAtFirstError) {
  std::vector<int> v = {1};
  const DiffBatch<int> batch = {D::push_back(2), D::remove(5), D::push_back(3)};
  const BatchResult r = apply_batch(v, batch);
  EXPECT_EQ(r.error, DiffError::index_out_of_range);
  EXPECT_EQ(r.failed_at, 1U);
  EXPECT_EQ(v, (std::vector<int>{1, 2}));
}

TEST(Diff, EqualityIgnoresUnusedFields) {
  D a = D::remove(3);
  D b = D::remove(3);
  b.value = 42;  // not part of a remove
  EXPECT_EQ(a, b);
  EXPECT_NE(D::remove(3), D::remove(4));
  EXPECT_NE(D::set(1, 2), D::insert(1, 2));
  EXPECT_NE(D::push_back(1), D::push_back(2));
}

TEST(Diff, MessagesNameEveryError) {
  for (DiffError e : {DiffError::ok, DiffError::index_out_of_range, DiffError::empty,
                      DiffError::truncate_grows}) {
    EXPECT_NE(message(e), "?");
  }
  for (int op = 0; op <= static_cast<int>(DiffOp::reset); ++op) {
    EXPECT_NE(to_string(static_cast<DiffOp>(op)), "?");
  }
}

}  // namespace
}  // namespace herald::live
