// M1: the stall of a shard while a moderated namespace's own engine is
// rebuilt after a dictionary edit.
//
// One shard runs the embedded broker behind moderation; a namespace is
// moderated by several dictionaries (so it has an engine of its own). A
// 1 ms timer on the shard measures its event-loop lag: how late each tick
// runs, which is what a ping from any other connection of the shard would
// wait. Each round edits one dictionary (its reply comes once the store's
// engine has the edit), then publishes to the namespace from the shard and
// waits for the answer; the largest lag seen during the round is the
// shard's stall. Both build modes run in the same process on the same
// dictionaries: inline (the plain path: the build runs on the shard, as
// every build did before) and on the moderator's builder thread; and a
// control: the same builds on the builder thread started from the main
// thread, with no publication on the shard, which measures what a build
// running beside the shard costs it on this machine (CPU and memory
// contention) and no more.
//
//   bench_moderation [--keywords N] [--dictionaries D] [--rounds R]
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/broker/memory_broker.hpp"
#include "gateway/moderation/moderating_broker.hpp"
#include "match/store/memory_store.hpp"
#include "match/store/sync.hpp"

namespace {

using namespace herald;
using namespace herald::gateway;
using Clock = std::chrono::steady_clock;
namespace kw = herald::match::store;

// The shard's lag with nothing to do for `window`: the machine's noise floor.
struct Idle {
  double max_ms;
};

struct Round {
  double stall_ms;    // the largest lag of the shard's 1 ms timer
  double publish_ms;  // from the edit's reply to the publication's answer
};

// The shard's lag, sampled by a timer that re-arms itself every millisecond.
class LagProbe {
 public:
  explicit LagProbe(boost::asio::io_context& ctx) : timer_(ctx) {}
  void start() { arm(); }
  void stop() { stopping_ = true; }
  // The largest lag since the last reset, in ns.
  std::int64_t take_max() { return max_ns_.exchange(0); }

 private:
  void arm() {
    timer_.expires_after(std::chrono::milliseconds(1));
    timer_.async_wait([this](boost::system::error_code ec) {
      if (ec || stopping_) return;
      const auto lag =
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - timer_.expiry())
              .count();
      std::int64_t seen = max_ns_.load();
      while (lag > seen && !max_ns_.compare_exchange_weak(seen, lag)) {
      }
      arm();
    });
  }
  boost::asio::steady_timer timer_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::int64_t> max_ns_{0};
};

std::vector<std::vector<kw::Entry>> make_dictionaries(std::size_t keywords, std::size_t dicts) {
  std::mt19937 rng(42);
  std::vector<std::vector<kw::Entry>> out(dicts);
  for (std::size_t i = 0; i < keywords; ++i) {
    std::string k;
    const std::size_t len = 6 + rng() % 7;
    for (std::size_t c = 0; c < len; ++c) k += static_cast<char>('a' + rng() % 26);
    k += std::to_string(i);  // distinct
    out[i % dicts].push_back({std::move(k), kw::Action::mask, "m1"});
  }
  return out;
}

enum class Mode { inline_builds, builder, control };

std::vector<Round> run(Mode mode, const std::vector<std::vector<kw::Entry>>& dicts, int rounds,
                       std::uint64_t& builds, Idle& idle) {
  ShardPool pool(1);
  kw::MemoryStore store(kw::Limits{.max_dictionaries = 1024, .max_batch = 1'000'000});
  metrics::Registry registry;
  Options options;
  std::string names;
  for (std::size_t d = 0; d < dicts.size(); ++d) {
    const std::string name = "d" + std::to_string(d);
    if (!kw::add_many(store, name, dicts[d]).ok()) std::abort();
    names += (d ? "," : "") + name;
  }
  options.rooms.moderation.dictionaries = names;  // several: an engine of its own
  moderation::Moderator moderator(
      store, options, registry,
      mode == Mode::inline_builds ? moderation::inline_builds() : moderation::BuildRunner{});
  broker::MemoryBroker inner(
      options, pool, [](unsigned, const std::string&, const fanout::MessagePtr&) {}, registry);
  moderation::ModeratingBroker broker(inner, moderator, pool);
  broker.start();
  LagProbe probe(pool[0].ctx);
  boost::asio::post(pool[0].ctx, [&] { probe.start(); });
  pool.start();

  auto publish = [&](const std::string& text) {
    std::promise<protocol::PublishResult> answered;
    boost::asio::post(pool[0].ctx, [&] {
      broker.publish(0, protocol::PublishRequest{"room", "\"" + text + "\"", ""},
                     [&](protocol::PublishResult r) { answered.set_value(std::move(r)); });
    });
    protocol::PublishResult r = answered.get_future().get();
    if (r.error) {
      std::fprintf(stderr, "publish failed: %s\n", r.error->message.c_str());
      std::abort();
    }
  };
  publish("warm up");  // the first build, outside the rounds
  std::vector<Round> out;
  for (int i = 0; i < rounds; ++i) {
    const std::string word = "edit" + std::to_string(i);
    if (!kw::add_many(store, "d0", {{word, kw::Action::mask, "m1"}}).ok()) std::abort();
    probe.take_max();
    const auto t0 = Clock::now();
    if (mode == Mode::control) {
      std::promise<std::string> built;
      moderator.prepare(*moderator.policy_of("room"),
                        [&](std::string error) { built.set_value(std::move(error)); });
      if (!built.get_future().get().empty()) std::abort();
    } else {
      publish(word);
    }
    const auto t1 = Clock::now();
    out.push_back({static_cast<double>(probe.take_max()) / 1e6,
                   std::chrono::duration<double, std::milli>(t1 - t0).count()});
  }
  probe.take_max();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  idle.max_ms = static_cast<double>(probe.take_max()) / 1e6;
  boost::asio::post(pool[0].ctx, [&] { probe.stop(); });
  broker.stop();
  pool.stop_and_join();
  const std::string text = registry.render();
  const auto at = text.find("\nherald_moderation_builds_total ");
  builds = at == std::string::npos ? 0 : std::stoull(text.substr(at + 32));
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t keywords = 200'000;
  std::size_t dictionaries = 4;
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--keywords")
      keywords = std::stoul(argv[i + 1]);
    else if (flag == "--dictionaries")
      dictionaries = std::stoul(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: bench_moderation [--keywords N] [--dictionaries D] [--rounds R]\n");
      return 2;
    }
  }
  const auto dicts = make_dictionaries(keywords, dictionaries);
  std::printf("M1: %zu keywords in %zu dictionaries, %d rounds per mode\n", keywords, dictionaries,
              rounds);
  double stall[3], pub[3];
  const char* names[3] = {"inline", "builder", "control"};
  for (int mode = 0; mode < 3; ++mode) {
    std::uint64_t builds = 0;
    Idle idle{};
    auto r = run(static_cast<Mode>(mode), dicts, rounds, builds, idle);
    std::vector<double> s, p;
    for (const Round& x : r) {
      s.push_back(x.stall_ms);
      p.push_back(x.publish_ms);
    }
    stall[mode] = median(s);
    pub[mode] = median(p);
    std::printf(
        "%-10s shard stall per edit: median %.1f ms (max %.1f); edit -> publication "
        "(control: build) answered: median %.1f ms; builds %llu; idle 2 s (noise floor): max lag "
        "%.1f ms\n",
        names[mode], stall[mode], *std::max_element(s.begin(), s.end()), pub[mode],
        static_cast<unsigned long long>(builds), idle.max_ms);
  }
  std::printf("stall ratio inline / builder: %.0fx; builder / control: %.2f\n",
              stall[0] / std::max(stall[1], 0.001), stall[1] / std::max(stall[2], 0.001));
  return 0;
}
