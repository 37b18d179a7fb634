// Writer: the one thread that writes a MembershipStore, batching the
// changes the shards submit so that a burst of read markers costs one
// commit, not one per marker (S1 in docs/benchmarks.md: LMDB's cost per
// change falls 3x from one change per commit to 64).
//
// A batch starts with the first change that arrives and closes when it
// holds max_batch changes or max_delay has passed since that first one,
// whichever comes first; then it is applied in one transaction and each
// change's `done` runs, in submission order, on the writer thread (a
// caller on a shard posts back to itself from there). A batch the store
// refuses whole (a full map) gives every change of it that error.
//
// The queue is bounded (max_queue): submit() returns false rather than
// grow without limit behind a slow disk, and the caller refuses its
// command naming the limit. The destructor applies what is queued, then
// stops.
//
// The plain twin: applying each change alone, in order, gives the same
// outcomes and the same store (tests/state/writer_test.cpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/result.hpp"
#include "state/membership.hpp"
#include "state/membership_store.hpp"

namespace herald::state {

class Writer {
 public:
  struct Options {
    std::chrono::milliseconds max_delay{10};
    std::size_t max_batch = 1000;
    std::size_t max_queue = 100'000;
  };
  using Done = std::function<void(const Result<Outcome, std::string>&)>;
  // What a caller whose submit() was refused tells its own caller.
  static constexpr std::string_view kQueueFull =
      "state.max_queue changes wait to be committed already: retry";

  Writer(MembershipStore& store, Options options);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Queues `change`; `done` (may be empty) runs once its batch is
  // applied. False, and nothing queued, when max_queue changes wait
  // already. Any thread.
  [[nodiscard]] bool submit(Change change, Done done = {});
  // Returns once every change submitted before the call is applied (and
  // its `done` has run), closing the open batch at once.
  void flush();

  // Batches applied so far: what the batching saves is this beside the
  // changes applied.
  [[nodiscard]] std::uint64_t batches() const;
  // Changes applied and answered so far.
  [[nodiscard]] std::uint64_t changes() const;

 private:
  struct Item {
    Change change;
    Done done;
  };
  void run();

  MembershipStore& store_;
  const Options options_;
  mutable std::mutex mu_;
  std::condition_variable wake_;     // the writer: work, a flush, or stop
  std::condition_variable applied_;  // flush(): a batch was applied
  std::deque<Item> queue_;
  std::uint64_t submitted_ = 0;  // changes ever queued
  std::uint64_t finished_ = 0;   // changes applied and answered
  std::uint64_t flush_to_ = 0;   // close batches at once until finished_ reaches it
  std::uint64_t batches_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace herald::state
