#include "redis/cluster_slots.hpp"

#include <hiredis/hiredis.h>

#include <charconv>
#include <stdexcept>
#include <string>

#include "redis/argv.hpp"

namespace herald::redis {

namespace {

// CRC16-CCITT (XMODEM): polynomial 0x1021, initial 0, as in Redis's crc16.c.
std::uint16_t crc16(std::string_view s) {
  std::uint16_t crc = 0;
  for (unsigned char c : s) {
    crc = static_cast<std::uint16_t>(crc ^ (c << 8));
    for (int i = 0; i < 8; ++i) {
      crc = (crc & 0x8000) != 0 ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021)
                                : static_cast<std::uint16_t>(crc << 1);
    }
  }
  return crc;
}

}  // namespace

std::string_view hash_tag(std::string_view key) {
  const std::size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close != open + 1)
      return key.substr(open + 1, close - open - 1);
  }
  return key;
}

std::uint16_t key_slot(std::string_view key) {
  return static_cast<std::uint16_t>(crc16(hash_tag(key)) % kClusterSlots);
}

std::optional<SlotMap> parse_cluster_slots(const Reply& reply) {
  using T = Reply::Type;
  if (reply.type != T::array) return std::nullopt;
  SlotMap map;
  map.owner.assign(kClusterSlots, UINT16_MAX);
  // Each entry: [start, end, [host, port, id, ...] (the master), replicas...]
  for (const Reply& range : reply.elements) {
    const auto& e = range.elements;
    if (range.type != T::array || e.size() < 3 || e[0].type != T::integer ||
        e[1].type != T::integer || e[2].type != T::array || e[2].elements.size() < 2 ||
        e[2].elements[0].type != T::string || e[2].elements[1].type != T::integer) {
      return std::nullopt;
    }
    const std::int64_t start = e[0].integer, end = e[1].integer;
    const std::int64_t port = e[2].elements[1].integer;
    if (start < 0 || end < start || end >= static_cast<std::int64_t>(kClusterSlots) || port <= 0 ||
        port > 65535) {
      return std::nullopt;
    }
    config::Endpoint master{e[2].elements[0].str, static_cast<std::uint16_t>(port)};
    std::size_t index = 0;
    while (index < map.masters.size() &&
           !(map.masters[index].host == master.host && map.masters[index].port == master.port))
      ++index;
    if (index == map.masters.size()) map.masters.push_back(master);
    for (std::int64_t s = start; s <= end; ++s)
      map.owner[static_cast<std::size_t>(s)] = static_cast<std::uint16_t>(index);
  }
  for (std::uint16_t o : map.owner)
    if (o == UINT16_MAX) return std::nullopt;
  return map;
}

std::optional<Redirect> parse_redirect(const Reply& reply) {
  if (!reply.is_error()) return std::nullopt;
  std::string_view s = reply.str;
  Redirect r;
  if (s.starts_with("MOVED ")) {
    r.kind = Redirect::Kind::moved;
    s.remove_prefix(6);
  } else if (s.starts_with("ASK ")) {
    r.kind = Redirect::Kind::ask;
    s.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  const std::size_t sp = s.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view digits, std::uint32_t max) -> std::optional<std::uint32_t> {
    std::uint32_t v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || v > max)
      return std::nullopt;
    return v;
  };
  auto slot = number(s.substr(0, sp), kClusterSlots - 1);
  const std::string_view address = s.substr(sp + 1);
  const std::size_t colon = address.rfind(':');
  if (!slot || colon == std::string_view::npos) return std::nullopt;
  auto port = number(address.substr(colon + 1), 65535);
  if (!port || *port == 0) return std::nullopt;
  std::string_view host = address.substr(0, colon);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  if (host.find_first_of(" []") != std::string_view::npos) return std::nullopt;
  r.slot = static_cast<std::uint16_t>(*slot);
  r.to = config::Endpoint{std::string(host), static_cast<std::uint16_t>(*port)};
  return r;
}

SlotMap discover_slots(const config::Endpoint& seed, const Credentials& credentials,
                       std::chrono::milliseconds timeout, std::string_view section) {
  const std::string key(section);
  timeval tv{static_cast<time_t>(timeout.count() / 1000),
             static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  redisContext* c = redisConnectWithTimeout(seed.host.c_str(), seed.port, tv);
  const std::string where = key + ".address " + seed.to_string();
  if (c == nullptr || c->err != 0) {
    std::string why = c != nullptr ? c->errstr : "out of memory";
    if (c != nullptr) redisFree(c);
    throw std::runtime_error(where + ": cannot connect to read the cluster's slots: " + why);
  }
  (void)redisSetTimeout(c, tv);
  if (const std::vector<std::string> auth = credentials.auth_command(); !auth.empty()) {
    Argv argv(auth);
    // Safety: a blocking context's replies are redisReply (hiredis's default
    // reply functions); nullptr on an I/O error.
    auto* a = static_cast<redisReply*>(
        redisCommandArgv(c, argv.argc(), argv.args.data(), argv.lens.data()));
    const bool refused = a == nullptr || a->type == REDIS_REPLY_ERROR;
    const std::string why = a == nullptr ? std::string(c->errstr) : std::string(a->str, a->len);
    if (a != nullptr) freeReplyObject(a);
    if (refused) {
      redisFree(c);
      throw std::runtime_error(key + ".password: redis at " + seed.to_string() +
                               " refused AUTH as " + credentials.who() + ": " + why + " (set " +
                               key + ".username and " + key +
                               ".password to a user and password the cluster accepts)");
    }
  }
  auto* r = static_cast<redisReply*>(redisCommand(c, "CLUSTER SLOTS"));
  Reply reply = from_hiredis(r);
  if (r != nullptr) freeReplyObject(r);
  redisFree(c);
  if (reply.is_error() && reply.str.starts_with("NOAUTH"))
    throw std::runtime_error(key + ".password: redis at " + seed.to_string() +
                             " requires a password: " + reply.str);
  if (reply.is_error())
    throw std::runtime_error(where + ": CLUSTER SLOTS failed (" + reply.str +
                             "); is it a Redis Cluster node?");
  auto map = parse_cluster_slots(reply);
  if (!map)
    throw std::runtime_error(where + ": the cluster does not cover every slot yet (" +
                             reply.describe().substr(0, 200) + ")");
  // A master announced without an address (Redis leaves the host empty
  // for the node answering) is the seed itself.
  for (auto& m : map->masters)
    if (m.host.empty()) m.host = seed.host;
  return *map;
}

}  // namespace herald::redis
