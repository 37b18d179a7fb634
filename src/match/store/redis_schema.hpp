// The Redis layout of a dictionary (docs/match.md, "The Redis schema") and
// the commands that read and write it. Every key of dictionary NAME carries
// the hash tag {NAME}, so Redis Cluster keeps them in one slot and one
// script or MULTI may touch them all:
//
//   <prefix>{NAME}:keywords   SET     the keywords
//   <prefix>{NAME}:meta       HASH    keyword -> "<action>:<category>"
//   <prefix>{NAME}:version    STRING  integer; changes on every effective write
//
// Writes are Lua scripts (one EVAL: one round trip, atomic) that change the
// set and the hash, bump the version and PUBLISH the invalidation
// "<version> <origin> <unix ms> <NAME>" on the channel, all in one step.
// A version starts at the server's clock in microseconds when the key is
// missing, so a Redis that lost its data (restart without persistence)
// never hands out a version a process could confuse with an old one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "match/store/entry.hpp"
#include "redis/client.hpp"

namespace herald::match::store::schema {

struct Keys {
  std::string keywords, meta, version;
};
[[nodiscard]] Keys keys(std::string_view prefix, std::string_view dict);

// The identity of a write, published with its invalidation.
struct Origin {
  std::string channel;
  std::string id;  // this process; its own echoes are ignored
  std::int64_t unix_ms = 0;
};

[[nodiscard]] redis::Command add(const Keys& k, const Origin& o, std::string_view dict,
                                 const std::vector<Entry>& entries);
[[nodiscard]] redis::Command remove(const Keys& k, const Origin& o, std::string_view dict,
                                    const std::vector<std::string>& keywords);
[[nodiscard]] redis::Command flush(const Keys& k, const Origin& o, std::string_view dict);
// MULTI, GET version, HGETALL meta, EXEC: one round trip, one snapshot.
[[nodiscard]] std::vector<redis::Command> read(const Keys& k);

// A write script's reply {new version, changed, old version}.
struct WriteReply {
  std::uint64_t version = 0, changed = 0, old_version = 0;
};
[[nodiscard]] herald::Result<WriteReply, std::string> parse_write(const redis::Reply& r);

// The replies of read(): the version and the entries.
struct Snapshot {
  std::uint64_t version = 0;
  std::vector<Entry> entries;
};
[[nodiscard]] herald::Result<Snapshot, std::string> parse_read(
    const std::vector<redis::Reply>& replies);
// A version as GET returns it (nil is 0).
[[nodiscard]] std::optional<std::uint64_t> parse_version(const redis::Reply& r);

struct Invalidation {
  std::uint64_t version = 0;
  std::string origin;
  std::int64_t unix_ms = 0;
  std::string dict;
};
[[nodiscard]] std::optional<Invalidation> parse_invalidation(std::string_view payload);

}  // namespace herald::match::store::schema
