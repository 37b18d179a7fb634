// Shard per core: N threads, each running its own io_context. Everything a
// connection owns lives on one shard for the connection's life, so its state
// needs no lock; crossing shards is done by posting a function to the other
// shard's io_context.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace herald::gateway {

class ShardPool {
 public:
  struct Shard {
    explicit Shard(unsigned i) : index(i), ctx(1) {}  // 1: single-threaded hint
    unsigned index;
    boost::asio::io_context ctx;
  };

  explicit ShardPool(unsigned count);
  ~ShardPool();
  ShardPool(const ShardPool&) = delete;
  ShardPool& operator=(const ShardPool&) = delete;

  // Starts one thread per shard; each runs until stop().
  void start();
  // Stops every io_context (handlers not yet run are dropped) and joins the
  // threads. Callers drain connections first; see Server::shutdown().
  void stop_and_join();

  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(shards_.size()); }
  [[nodiscard]] Shard& operator[](unsigned i) { return *shards_[i]; }

  // Runs done(result) on shard `to`: how a broker (or any other thread)
  // answers the shard that asked. `done` is moved, never copied, so the
  // caller's thread keeps nothing it holds (a session is released on its
  // shard, docs/ARCHITECTURE.md "Threads").
  template <class Result>
  void reply(unsigned to, std::function<void(Result)> done, Result result) {
    boost::asio::post((*this)[to].ctx,
                      [done = std::move(done), result = std::move(result)]() mutable {
                        done(std::move(result));
                      });
  }

 private:
  using Guard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<Guard> guards_;
  std::vector<std::thread> threads_;
};

}  // namespace herald::gateway
