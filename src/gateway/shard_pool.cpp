#include "gateway/shard_pool.hpp"

#include <string>

#include "core/log.hpp"

namespace herald::gateway {

ShardPool::ShardPool(unsigned count) {
  for (unsigned i = 0; i < count; ++i) shards_.push_back(std::make_unique<Shard>(i));
}

ShardPool::~ShardPool() {
  stop_and_join();
}

void ShardPool::start() {
  for (auto& s : shards_) guards_.emplace_back(s->ctx.get_executor());
  for (auto& s : shards_) {
    threads_.emplace_back([shard = s.get()] {
      try {
        shard->ctx.run();
      } catch (const std::exception& e) {
        // A handler let an exception escape: a bug. Log it where it happened
        // and stop the process rather than run with a dead shard.
        log::error("shard crashed", {{"shard", shard->index}, {"error", e.what()}});
        std::terminate();
      }
    });
  }
}

void ShardPool::stop_and_join() {
  for (auto& g : guards_) g.reset();
  guards_.clear();
  for (auto& s : shards_) s->ctx.stop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

}  // namespace herald::gateway
