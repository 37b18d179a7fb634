#include "state/writer.hpp"

#include <utility>
#include <vector>

namespace herald::state {

Writer::Writer(MembershipStore& store, Options options)
    : store_(store), options_(options), thread_([this] { run(); }) {}

Writer::~Writer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool Writer::submit(Change change, Done done) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= options_.max_queue) return false;
    queue_.push_back({std::move(change), std::move(done)});
    ++submitted_;
  }
  wake_.notify_all();
  return true;
}

void Writer::flush() {
  std::unique_lock lock(mu_);
  const std::uint64_t target = submitted_;
  if (flush_to_ < target) flush_to_ = target;
  wake_.notify_all();
  applied_.wait(lock, [&] { return finished_ >= target; });
}

std::uint64_t Writer::batches() const {
  std::lock_guard lock(mu_);
  return batches_;
}

std::uint64_t Writer::changes() const {
  std::lock_guard lock(mu_);
  return finished_;
}

void Writer::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to apply
    // The batch is open from now until it is full, max_delay has passed,
    // a flush wants it, or the writer stops.
    const auto deadline = std::chrono::steady_clock::now() + options_.max_delay;
    wake_.wait_until(lock, deadline, [&] {
      return stopping_ || queue_.size() >= options_.max_batch || flush_to_ > finished_;
    });
    std::vector<Item> batch;
    const std::size_t n = std::min(queue_.size(), options_.max_batch);
    batch.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lock.unlock();
    std::vector<Change> changes;
    changes.reserve(batch.size());
    for (Item& item : batch) changes.push_back(std::move(item.change));
    auto outcomes = store_.apply(changes);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!batch[i].done) continue;
      if (outcomes) {
        batch[i].done((*outcomes)[i]);
      } else {
        batch[i].done(Fail{outcomes.error()});
      }
    }
    lock.lock();
    finished_ += batch.size();
    ++batches_;
    applied_.notify_all();
  }
}

}  // namespace herald::state
