// kw_peer: another Herald process sharing the test's Redis, for the
// two-process tests. Each run opens its own RedisStore (its own origin id,
// its own connections) and does one job:
//
//   kw_peer PORT [--channel NAME] add DICT KEYWORD...        one add_many
//   kw_peer PORT [--channel NAME] add-loop DICT PREFIX N     N adds, one keyword each
//
// Prints "ok version=V changed=C" (or "error: ...") per write, and exits 1
// on the first error.
#include <cstdio>
#include <string>
#include <vector>

#include "match/store/redis_store.hpp"
#include "match/store/sync.hpp"

namespace kw = herald::match::store;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 3) {
    std::fprintf(stderr, "usage: kw_peer PORT [--channel NAME] add|add-loop DICT ...\n");
    return 2;
  }
  kw::RedisStoreOptions o;
  o.topology.address.port = static_cast<std::uint16_t>(std::stoi(args[0]));
  std::size_t i = 1;
  if (args[i] == "--channel") {
    o.channel = args[i + 1];
    i += 2;
  }
  const std::string job = args[i], dict = args[i + 1];
  i += 2;
  kw::RedisStore store(o);
  if (!store.wait_connected(std::chrono::seconds(10))) {
    std::printf("error: not connected\n");
    return 1;
  }
  auto report = [](const kw::WriteResult& r) {
    if (!r.ok()) {
      std::printf("error: %s\n", r.error.c_str());
      return false;
    }
    std::printf("ok version=%llu changed=%zu\n", static_cast<unsigned long long>(r.version),
                r.changed);
    return true;
  };
  if (job == "add") {
    std::vector<kw::Entry> entries;
    for (; i < args.size(); ++i) entries.push_back({args[i], kw::Action::reject, "peer"});
    bool ok = report(kw::add_many(store, dict, entries));
    std::fflush(stdout);
    return ok ? 0 : 1;
  }
  if (job == "add-loop" && i + 1 < args.size()) {
    const std::string prefix = args[i];
    const int n = std::stoi(args[i + 1]);
    for (int k = 0; k < n; ++k) {
      if (!report(kw::add_many(store, dict, {{prefix + std::to_string(k), kw::Action::flag, ""}})))
        return 1;
    }
    std::printf("done %d\n", n);
    std::fflush(stdout);
    return 0;
  }
  std::fprintf(stderr, "unknown job '%s'\n", job.c_str());
  return 2;
}
