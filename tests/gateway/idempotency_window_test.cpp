// broker/idempotency_window.hpp: a key answers within the window and not
// after it, a key published anew after its window answers with the new
// offset, and a room's keys are bounded by kMaxKeys, the oldest going first.
#include "gateway/broker/idempotency_window.hpp"

#include <gtest/gtest.h>

namespace herald::gateway::broker {
namespace {

constexpr std::int64_t kWindow = IdempotencyWindow::kWindow.count();

TEST(IdempotencyWindow, AKeyAnswersWithinTheWindowOnly) {
  IdempotencyWindow w;
  w.remember("a", 7, 1000);
  EXPECT_EQ(w.find("a", 1000 + kWindow - 1), 7u);
  EXPECT_EQ(w.find("a", 1000 + kWindow), std::nullopt);
  EXPECT_EQ(w.find("b", 1000), std::nullopt);
  // Published anew after its window: the new offset, and the old entry's
  // expiry does not take the new one with it.
  w.remember("a", 9, 1000 + kWindow);
  EXPECT_EQ(w.find("a", 1000 + kWindow + 1), 9u);
  w.expire(1000 + kWindow + 1);
  EXPECT_EQ(w.find("a", 1000 + kWindow + 1), 9u);
  EXPECT_EQ(w.size(), 1u);
  w.expire(1000 + 2 * kWindow);
  EXPECT_TRUE(w.empty());
}

TEST(IdempotencyWindow, KeepsAtMostMaxKeysOldestFirst) {
  IdempotencyWindow w;
  for (std::size_t i = 0; i <= IdempotencyWindow::kMaxKeys; ++i)
    w.remember("k" + std::to_string(i), i, static_cast<std::int64_t>(i));
  EXPECT_EQ(w.size(), IdempotencyWindow::kMaxKeys);
  EXPECT_EQ(w.find("k0", 10), std::nullopt);  // the oldest went
  EXPECT_EQ(w.find("k1", 10), 1u);
  EXPECT_EQ(w.find("k" + std::to_string(IdempotencyWindow::kMaxKeys), 10),
            IdempotencyWindow::kMaxKeys);
}

}  // namespace
}  // namespace herald::gateway::broker
