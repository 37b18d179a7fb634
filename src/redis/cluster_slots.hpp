// The Redis Cluster protocol (a Router's topology "cluster"): which master
// serves a key. Redis Cluster splits keys into
// 16384 slots by CRC16 of the key's hash tag (the text between the first
// '{' and the next '}', when non-empty; else the whole key), and every key
// of a room carries {room}, so a room's keys, its scripts and its channel
// live on one master. The slot map is read at start-up (CLUSTER SLOTS) and
// kept current by the redirections Redis answers with: MOVED (the slot has
// a new owner: the map is updated) and ASK (the slot is being migrated:
// this one command goes to the importing node, after ASKING). The Router
// follows them (router.hpp; docs/cluster.md teaches the design).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/values.hpp"
#include "redis/options.hpp"
#include "redis/reply.hpp"

namespace herald::redis {

inline constexpr std::size_t kClusterSlots = 16384;

// The part of `key` Redis Cluster hashes: the text between the first '{'
// and the next '}' when it is not empty, else the whole key.
[[nodiscard]] std::string_view hash_tag(std::string_view key);
// The slot of `key` (Redis Cluster's keyHashSlot): CRC16 of its hash tag.
[[nodiscard]] std::uint16_t key_slot(std::string_view key);

struct SlotMap {
  std::vector<config::Endpoint> masters;
  std::vector<std::uint16_t> owner;  // slot -> index into masters; kClusterSlots entries
};

// A CLUSTER SLOTS reply as a map; nullopt when it is not shaped as one or
// leaves a slot uncovered (a cluster not ready: cluster_state is not ok).
[[nodiscard]] std::optional<SlotMap> parse_cluster_slots(const Reply& reply);

// A redirection error reply: "MOVED <slot> <host>:<port>" or
// "ASK <slot> <host>:<port>". Redis leaves the host empty when it does not
// know the address it is reached at ("MOVED 3999 :6381"); `to.host` is then
// empty and the caller uses the host of the node that answered. An IPv6
// host comes without brackets ("::1:6381": the port follows the last
// colon).
struct Redirect {
  enum class Kind : std::uint8_t { moved, ask } kind = Kind::moved;
  std::uint16_t slot = 0;
  config::Endpoint to;
};
// nullopt for any other reply, or a redirection not shaped as above.
[[nodiscard]] std::optional<Redirect> parse_redirect(const Reply& reply);

// Asks `seed` (blocking, at start-up; after AUTH with `credentials`, if
// any) for the map. Throws std::runtime_error naming `<section>.address`
// and the reason, or `<section>.password` when AUTH is refused (`section`:
// the configuration section the seed comes from, e.g. "cluster.redis").
[[nodiscard]] SlotMap discover_slots(const config::Endpoint& seed, const Credentials& credentials,
                                     std::chrono::milliseconds timeout, std::string_view section);

}  // namespace herald::redis
