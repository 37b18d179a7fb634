#include "match/store/redis_schema.hpp"

#include <charconv>

namespace herald::match::store::schema {
namespace {

// Shared by every write script. KEYS: keywords, meta, version. ARGV[1..4]:
// channel, origin, unix ms, dictionary name. bump() runs only when the
// write changed something, so a no-op write neither bumps nor publishes.
// Versions pass through string.format('%d'): Lua's default number format
// would print 16-digit integers in exponent notation.
constexpr std::string_view kPrelude = R"lua(
local old = tonumber(redis.call('GET', KEYS[3]) or '0')
local function bump(changed)
  if changed == 0 then return old end
  local v
  if old == 0 then
    local t = redis.call('TIME')
    v = redis.call('INCRBY', KEYS[3], t[1] .. string.format('%06d', tonumber(t[2])))
  else
    v = redis.call('INCR', KEYS[3])
  end
  redis.call('PUBLISH', ARGV[1],
    string.format('%d', v) .. ' ' .. ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[4])
  return v
end
)lua";

// ARGV[5..]: keyword, metadata, keyword, metadata, ...
constexpr std::string_view kAdd = R"lua(
local changed = 0
for i = 5, #ARGV, 2 do
  local added = redis.call('SADD', KEYS[1], ARGV[i])
  if added == 1 or redis.call('HGET', KEYS[2], ARGV[i]) ~= ARGV[i + 1] then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    changed = changed + 1
  end
end
return {bump(changed), changed, old}
)lua";

// ARGV[5..]: keywords.
constexpr std::string_view kRemove = R"lua(
local changed = 0
for i = 5, #ARGV do
  if redis.call('SREM', KEYS[1], ARGV[i]) == 1 then
    redis.call('HDEL', KEYS[2], ARGV[i])
    changed = changed + 1
  end
end
return {bump(changed), changed, old}
)lua";

// The version key is kept: versions only move forward.
constexpr std::string_view kFlush = R"lua(
local changed = redis.call('SCARD', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return {bump(changed), changed, old}
)lua";

// EVAL, not EVALSHA: EVALSHA would save sending the script, but after a
// server restart it answers NOSCRIPT and costs a second round trip; EVAL is
// always exactly one (Redis caches the compiled script by its hash).
redis::Command script(std::string_view body, const Keys& k, const Origin& o,
                      std::string_view dict) {
  std::string text(kPrelude);
  text += body;
  return {"EVAL",
          std::move(text),
          "3",
          k.keywords,
          k.meta,
          k.version,
          o.channel,
          o.id,
          std::to_string(o.unix_ms),
          std::string(dict)};
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Keys keys(std::string_view prefix, std::string_view dict) {
  std::string base(prefix);
  base += '{';
  base += dict;
  base += "}:";
  return {base + "keywords", base + "meta", base + "version"};
}

redis::Command add(const Keys& k, const Origin& o, std::string_view dict,
                   const std::vector<Entry>& entries) {
  redis::Command c = script(kAdd, k, o, dict);
  c.reserve(c.size() + 2 * entries.size());
  for (const Entry& e : entries) {
    c.push_back(e.keyword);
    c.push_back(encode_meta(e));
  }
  return c;
}

redis::Command remove(const Keys& k, const Origin& o, std::string_view dict,
                      const std::vector<std::string>& keywords) {
  redis::Command c = script(kRemove, k, o, dict);
  c.insert(c.end(), keywords.begin(), keywords.end());
  return c;
}

redis::Command flush(const Keys& k, const Origin& o, std::string_view dict) {
  return script(kFlush, k, o, dict);
}

std::vector<redis::Command> read(const Keys& k) {
  return {{"MULTI"}, {"GET", k.version}, {"HGETALL", k.meta}, {"EXEC"}};
}

herald::Result<WriteReply, std::string> parse_write(const redis::Reply& r) {
  if (r.is_error()) {
    return "redis: " + r.str;
  }
  if (r.type != redis::Reply::Type::array || r.elements.size() != 3) {
    return "redis: unexpected reply to a write script: " + r.describe();
  }
  for (const redis::Reply& e : r.elements) {
    if (e.type != redis::Reply::Type::integer || e.integer < 0) {
      return "redis: unexpected element in a write script's reply: " + e.describe();
    }
  }
  return WriteReply{static_cast<std::uint64_t>(r.elements[0].integer),
                    static_cast<std::uint64_t>(r.elements[1].integer),
                    static_cast<std::uint64_t>(r.elements[2].integer)};
}

std::optional<std::uint64_t> parse_version(const redis::Reply& r) {
  if (r.is_nil()) return 0;
  if (r.type == redis::Reply::Type::integer && r.integer >= 0)
    return static_cast<std::uint64_t>(r.integer);
  if (r.type != redis::Reply::Type::string) return std::nullopt;
  return parse_u64(r.str);
}

herald::Result<Snapshot, std::string> parse_read(const std::vector<redis::Reply>& replies) {
  if (replies.size() != 4) {
    return std::string("redis: expected 4 replies to MULTI/GET/HGETALL/EXEC");
  }
  const redis::Reply& exec = replies[3];
  if (exec.is_error() || exec.type != redis::Reply::Type::array || exec.elements.size() != 2) {
    return "redis: the read transaction failed: " + exec.describe();
  }
  Snapshot s;
  auto version = parse_version(exec.elements[0]);
  if (!version) {
    return "redis: the version key holds " + exec.elements[0].describe() + ", not an integer";
  }
  s.version = *version;
  const redis::Reply& meta = exec.elements[1];
  if (meta.type != redis::Reply::Type::array || meta.elements.size() % 2 != 0) {
    return "redis: the meta hash came back as " + meta.describe();
  }
  s.entries.reserve(meta.elements.size() / 2);
  for (std::size_t i = 0; i < meta.elements.size(); i += 2) {
    Entry e;
    e.keyword = meta.elements[i].str;
    if (!decode_meta(meta.elements[i + 1].str, e)) {
      return "redis: keyword '" + e.keyword + "' has malformed metadata '" +
             meta.elements[i + 1].str + "' (expected <reject|mask|flag>:<category>)";
    }
    s.entries.push_back(std::move(e));
  }
  return s;
}

std::optional<Invalidation> parse_invalidation(std::string_view payload) {
  // "<version> <origin> <unix ms> <dict>"
  Invalidation inv;
  std::string_view rest = payload;
  auto next = [&rest](std::string_view& field) {
    const std::size_t sp = rest.find(' ');
    if (sp == std::string_view::npos) return false;
    field = rest.substr(0, sp);
    rest.remove_prefix(sp + 1);
    return true;
  };
  std::string_view version, origin, ms;
  if (!next(version) || !next(origin) || !next(ms)) return std::nullopt;
  auto v = parse_u64(version);
  auto t = parse_u64(ms);
  if (!v || !t || origin.empty() || dictionary_name_error(rest)) return std::nullopt;
  inv.version = *v;
  inv.origin.assign(origin);
  inv.unix_ms = static_cast<std::int64_t>(*t);
  inv.dict.assign(rest);
  return inv;
}

}  // namespace herald::match::store::schema
