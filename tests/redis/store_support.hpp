// Helpers shared by the Redis store tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "match/store/redis_store.hpp"
#include "match/store/sync.hpp"
#include "support/eventually.hpp"

namespace herald::test {

using namespace std::chrono_literals;
namespace kw = herald::match::store;

// Options for a store on the test's server. The default backstop is far
// away so that only the operation under test makes round trips.
inline kw::RedisStoreOptions store_options(std::uint16_t port,
                                           std::chrono::milliseconds backstop = 3'600'000ms) {
  kw::RedisStoreOptions o;
  o.topology.address.port = port;
  o.redis.reconnect_min = 20ms;
  o.redis.reconnect_max = 200ms;
  o.backstop_interval = backstop;
  return o;
}

inline std::vector<kw::Entry> numbered(const std::string& prefix, std::size_t n,
                                       kw::Action action = kw::Action::flag) {
  std::vector<kw::Entry> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back({prefix + std::to_string(i), action, "test"});
  return out;
}

// Whether `store`'s warm engine for `dict` finds `keyword` (no I/O).
inline bool warm_has(const kw::Store& store, const std::string& dict, const std::string& keyword) {
  auto e = store.warm(dict);
  if (!e) return false;
  std::vector<kw::Hit> hits;
  e->find(keyword, hits);
  return !hits.empty() && hits[0].keyword == keyword;
}

}  // namespace herald::test
