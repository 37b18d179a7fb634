#include "live/observable_vector.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "test_support.hpp"

namespace herald::live {
namespace {

using D = VectorDiff<int>;
using B = DiffBatch<int>;

// Everything queued, one batch per element.
std::vector<B> drain(Subscriber<int>& s) {
  std::vector<B> out;
  B b;
  while (s.next(b)) out.push_back(b);
  return out;
}

TEST(ObservableVector, EachMutationEmitsItsDiff) {
  ObservableVector<int> v;
  auto sub = v.subscribe();
  EXPECT_TRUE(sub.values.empty());
  v.append({1, 2, 3});
  v.push_front(0);
  v.push_back(4);
  v.insert(2, 9);
  v.set(2, 8);
  EXPECT_EQ(v.remove(2), 8);
  EXPECT_EQ(v.pop_front(), std::optional<int>(0));
  EXPECT_EQ(v.pop_back(), std::optional<int>(4));
  v.truncate(2);
  v.reset({5, 6});
  v.clear();
  const std::vector<B> expected = {{D::append({1, 2, 3})}, {D::push_front(0)}, {D::push_back(4)},
                                   {D::insert(2, 9)},      {D::set(2, 8)},     {D::remove(2)},
                                   {D::pop_front()},       {D::pop_back()},    {D::truncate(2)},
                                   {D::reset({5, 6})},     {D::clear()}};
  EXPECT_EQ(drain(sub.subscriber), expected);
}

TEST(ObservableVector, EmptyOperationsEmitNothing) {
  ObservableVector<int> v;
  auto sub = v.subscribe();
  v.append({});
  v.clear();
  EXPECT_EQ(v.pop_front(), std::nullopt);
  EXPECT_EQ(v.pop_back(), std::nullopt);
  v.truncate(0);
  v.push_back(1);
  v.truncate(1);  // same length
  v.truncate(5);  // longer
  {
    auto t = v.transaction();
    t.commit();
  }
  {
    auto t = v.transaction();
    t.push_back(2);
  }  // rolled back
  EXPECT_EQ(drain(sub.subscriber), (std::vector<B>{{D::push_back(1)}}));
  EXPECT_EQ(v.values(), (std::vector<int>{1}));
}

TEST(ObservableVector, FallibleCallsReportErrorsAndChangeNothing) {
  ObservableVector<int> v;
  auto sub = v.subscribe();
  v.push_back(1);
  EXPECT_EQ(v.try_insert(3, 0), DiffError::index_out_of_range);
  EXPECT_EQ(v.try_set(1, 0), DiffError::index_out_of_range);
  EXPECT_EQ(v.try_remove(1), DiffError::index_out_of_range);
  int old = 0;
  EXPECT_EQ(v.try_set(0, 7, &old), DiffError::ok);
  EXPECT_EQ(old, 1);
  EXPECT_EQ(drain(sub.subscriber), (std::vector<B>{{D::push_back(1)}, {D::set(0, 7)}}));
}

TEST(ObservableVector, TransactionCommitsOneBatch) {
  ObservableVector<int> v;
  v.append({1, 2});
  auto sub = v.subscribe();
  EXPECT_EQ(sub.values, (std::vector<int>{1, 2}));
  auto t = v.transaction();
  t.push_back(3);
  EXPECT_EQ(t.try_set(0, 10), DiffError::ok);
  EXPECT_EQ(t.try_remove(1), DiffError::ok);
  EXPECT_EQ(t.try_insert(9, 0), DiffError::index_out_of_range);
  EXPECT_EQ(v.values(), (std::vector<int>{1, 2}));  // nothing visible before commit
  EXPECT_EQ(sub.subscriber.queued(), 0U);
  t.commit();
  EXPECT_EQ(v.values(), (std::vector<int>{10, 3}));
  EXPECT_EQ(drain(sub.subscriber),
            (std::vector<B>{{D::push_back(3), D::set(0, 10), D::remove(1)}}));
}

TEST(ObservableVector, TransactionRollbackLeavesVectorAlone) {
  ObservableVector<int> v;
  v.append({1, 2});
  auto sub = v.subscribe();
  {
    auto t = v.transaction();
    t.clear();
    t.append({4});
    t.rollback();
  }
  v.push_back(3);  // the vector is usable again after the rollback
  EXPECT_EQ(v.values(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(drain(sub.subscriber), (std::vector<B>{{D::push_back(3)}}));
}

TEST(ObservableVector, LaggingSubscriberGetsOneResetOfCurrentState) {
  ObservableVector<int> v(/*buffer_capacity=*/2);
  auto slow = v.subscribe();
  auto fast = v.subscribe();
  B b;
  v.push_back(1);
  v.push_back(2);
  ASSERT_TRUE(fast.subscriber.next(b));
  ASSERT_TRUE(fast.subscriber.next(b));
  v.push_back(3);  // slow has 2 queued: overflow
  v.push_back(4);
  EXPECT_EQ(slow.subscriber.lag_resets(), 1U);
  EXPECT_EQ(drain(slow.subscriber), (std::vector<B>{{D::reset({1, 2, 3})}, {D::push_back(4)}}));
  EXPECT_EQ(fast.subscriber.lag_resets(), 0U);
  EXPECT_EQ(drain(fast.subscriber), (std::vector<B>{{D::push_back(3)}, {D::push_back(4)}}));
}

TEST(ObservableVector, DroppedSubscribersAreForgotten) {
  ObservableVector<int> v;
  auto a = v.subscribe();
  {
    auto b = v.subscribe();
    EXPECT_EQ(v.subscriber_count(), 2U);
  }
  EXPECT_EQ(v.subscriber_count(), 1U);
  v.push_back(1);
  EXPECT_EQ(a.subscriber.queued(), 1U);
}

TEST(ObservableVector, SubscriberOutlivesVector) {
  Subscriber<int> s;
  {
    ObservableVector<int> v;
    s = v.subscribe().subscriber;
    v.push_back(1);
    EXPECT_FALSE(s.finished());
  }
  EXPECT_FALSE(s.finished());  // one batch still queued
  EXPECT_EQ(drain(s), (std::vector<B>{{D::push_back(1)}}));
  EXPECT_TRUE(s.finished());
}

}  // namespace
}  // namespace herald::live
