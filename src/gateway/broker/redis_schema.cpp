#include "gateway/broker/redis_schema.hpp"

#include <charconv>

#include "gateway/protocol/encode.hpp"

namespace herald::gateway::broker::redis_schema {

RoomKeys room_keys(std::string_view prefix, std::string_view room) {
  std::string base(prefix);
  base += '{';
  base += room;
  base += '}';
  return RoomKeys{base + ":m", base + ":h", base + ":p", base + ":c"};
}

std::string idempotency_key(std::string_view prefix, std::string_view room, std::string_view key) {
  std::string out(prefix);
  out += '{';
  out += room;
  out += "}:i:";
  out += key;
  return out;
}

// Redis runs scripts atomically; TIME is allowed in scripts since Redis 5
// (effects replication). Numbers: offsets stay below 2^53, exact in Lua.
// The lineage check both stream scripts start with (redis_schema.hpp says
// why). `mine` is the master_replid of the server the node sent the script
// to ('' : not checked); `live` the replids of the masters the node
// is connected to, space-separated (both may be absent: no check). A room last written under
// another history that is not a live master's (a slot migration brings the keys of one) may have
// lost its tail: it takes the candidate epoch, keeping its top and history, so that no position of
// the old epoch reads as continuous. Returns the epoch to use (nil: the room has none).
const std::string kLineageHead = R"lua(
local function stream_epoch(meta, candidate, mine, live)
  local epoch = redis.call('HGET', meta, 'epoch')
  if not epoch or not mine or mine == '' then return epoch end
  live = live or ''
  local was = redis.call('HGET', meta, 'r')
  if was == mine then return epoch end
  redis.call('HSET', meta, 'r', mine)
  if was and not string.find(' ' .. live .. ' ', ' ' .. was .. ' ', 1, true) then
    epoch = candidate
    redis.call('HSET', meta, 'epoch', epoch)
  end
  return epoch
end
)lua";

const redis::Script kPublishScript(kLineageHead + R"lua(
if KEYS[3] then
  local first = redis.call('GET', KEYS[3])
  if first then
    local sp = string.find(first, ' ', 1, true)
    return {tonumber(string.sub(first, 1, sp - 1)), string.sub(first, sp + 1)}
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch = stream_epoch(KEYS[1], ARGV[2], ARGV[8], ARGV[9])
if not epoch then
  epoch = ARGV[2]
  redis.call('HSET', KEYS[1], 'epoch', epoch, 'top', 0)
  if (ARGV[8] or '') ~= '' then redis.call('HSET', KEYS[1], 'r', ARGV[8]) end
  redis.call('DEL', KEYS[2])
end
local top = redis.call('HINCRBY', KEYS[1], 'top', 1)
local frame = ARGV[6] .. top .. ',"epoch":"' .. epoch .. '"' .. ARGV[7]
local size = tonumber(ARGV[3])
if size > 0 then
  redis.call('RPUSH', KEYS[2], now .. ' ' .. frame)
  redis.call('LTRIM', KEYS[2], -size, -1)
  -- Entries are in time order: drop expired ones from the head. Terminates:
  -- the entry just pushed is younger than any TTL (at least 1 s).
  local cutoff = now - tonumber(ARGV[4])
  while true do
    local head = redis.call('LINDEX', KEYS[2], 0)
    if not head or tonumber(string.match(head, '^(%d+)')) > cutoff then break end
    redis.call('LPOP', KEYS[2])
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
else
  redis.call('DEL', KEYS[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PUBLISH', ARGV[1], 'p ' .. top .. ' ' .. epoch .. ' ' .. frame)
if KEYS[3] then redis.call('SET', KEYS[3], top .. ' ' .. epoch, 'PX', ARGV[10]) end
return {top, epoch}
)lua");

const redis::Script kReadScript(kLineageHead + R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch = stream_epoch(KEYS[1], ARGV[2], ARGV[11], ARGV[12])
if not epoch then
  if ARGV[1] ~= '1' then return {'', 0, 1} end
  epoch = ARGV[2]
  redis.call('HSET', KEYS[1], 'epoch', epoch, 'top', 0)
  if (ARGV[11] or '') ~= '' then redis.call('HSET', KEYS[1], 'r', ARGV[11]) end
  redis.call('DEL', KEYS[2])
end
if ARGV[1] == '1' then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
local top = tonumber(redis.call('HGET', KEYS[1], 'top'))
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[6], (now + tonumber(ARGV[8])) .. ' ' .. ARGV[7])
  redis.call('PEXPIRE', KEYS[3], ARGV[8])
end
if ARGV[10] ~= '' then redis.call('PUBLISH', ARGV[9], 'e ' .. ARGV[10]) end
local after = tonumber(ARGV[3])
local out = {epoch, top, top + 1}
if after < 0 or after >= top then return out end
local n = redis.call('LLEN', KEYS[2])
local base = top - n + 1
local start = after + 1 - base
if start < 0 then start = 0 end
local first = base + start
local cutoff = now - tonumber(ARGV[4])
for _, e in ipairs(redis.call('LRANGE', KEYS[2], start, -1)) do
  local sp = string.find(e, ' ', 1, true)
  if sp and tonumber(string.sub(e, 1, sp - 1)) > cutoff then
    out[#out + 1] = string.sub(e, sp + 1)
  elseif #out == 3 then
    first = first + 1
  end
end
out[3] = first
return out
)lua");

const redis::Script kLeaveScript(R"lua(
redis.call('HDEL', KEYS[1], ARGV[1])
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[2], 'e ' .. ARGV[3]) end
return 1
)lua");

// The end of the presence and node-registry scripts: the entries of the hash
// KEYS[1] whose "<expires ms> ..." value is still in the future, as field,
// value pairs; expired ones are deleted on the way. Expects `now` (ms).
const std::string kLiveEntriesTail = R"lua(
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local exp = tonumber(string.match(all[i + 1], '^(%d+)'))
  if exp and exp > now then
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return out
)lua";

const redis::Script kPresenceScript(R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
)lua" + kLiveEntriesTail);

const redis::Script kRefreshScript(R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], (now + ttl) .. ' ' .. ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
)lua");

const redis::Script kNodesScript(R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[4] == '1' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], (now + tonumber(ARGV[2])) .. ' ' .. ARGV[3])
end
)lua" + kLiveEntriesTail);

std::vector<const redis::Script*> all_scripts() {
  return {&kPublishScript,  &kReadScript,    &kLeaveScript,
          &kPresenceScript, &kRefreshScript, &kNodesScript};
}

FrameParts frame_parts(std::string_view room, std::string_view data_json,
                       std::string_view info_json, std::string_view moderation_json,
                       std::string_view tags_json) {
  // Built by the same function as the frames of the embedded broker, then
  // cut around the offset and the epoch.
  std::string whole =
      protocol::encode_pub_push(room, 0, "", data_json, info_json, moderation_json, tags_json);
  static constexpr std::string_view kCut = ",\"offset\":0,\"epoch\":\"\"";
  const std::size_t at = whole.find(kCut);
  FrameParts parts;
  parts.head = whole.substr(0, at) + ",\"offset\":";
  parts.tail = whole.substr(at + kCut.size());
  return parts;
}

std::string assemble_frame(const FrameParts& parts, std::uint64_t offset, std::string_view epoch) {
  std::string out = parts.head;
  out += std::to_string(offset);
  out += ",\"epoch\":\"";
  out += epoch;
  out += '"';
  out += parts.tail;
  return out;
}

namespace {

// Reads decimal digits up to `stop`; advances `s` past the stop character.
template <class Int>
bool take_number(std::string_view& s, char stop, Int& out) {
  const std::size_t end = s.find(stop);
  // Digits only (from_chars would take a sign), no leading zero: one
  // spelling per number, as the scripts write them.
  if (end == std::string_view::npos || end == 0 || s[0] < '0' || s[0] > '9') return false;
  if (end > 1 && s[0] == '0') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + end, out);
  if (ec != std::errc() || ptr != s.data() + end) return false;
  s.remove_prefix(end + 1);
  return true;
}

// "<kind> <asker> <id> ": what a survey question and its answers begin with.
std::string survey_head(char kind, std::string_view asker, std::uint64_t id) {
  std::string out(1, kind);
  out += ' ';
  out += asker;
  out += ' ';
  out += std::to_string(id);
  out += ' ';
  return out;
}
}  // namespace

std::string survey_question(std::string_view asker, std::uint64_t id, std::string_view question) {
  std::string out = survey_head('q', asker, id);
  out += question;
  return out;
}

std::string survey_answer(std::string_view asker, std::uint64_t id, std::string_view answerer,
                          std::string_view answer) {
  std::string out = survey_head('a', asker, id);
  out += answerer;
  out += ' ';
  out += answer;
  return out;
}

std::optional<SurveyMessage> parse_survey_message(std::string_view payload) {
  // A word up to the next space (not empty); advances past the space.
  auto take_word = [&payload](std::string_view& out) {
    const std::size_t sp = payload.find(' ');
    if (sp == std::string_view::npos || sp == 0) return false;
    out = payload.substr(0, sp);
    payload.remove_prefix(sp + 1);
    return true;
  };
  SurveyMessage m;
  if (payload.starts_with("a ")) {
    m.answer = true;
  } else if (!payload.starts_with("q ")) {
    return std::nullopt;
  }
  payload.remove_prefix(2);
  if (!take_word(m.asker) || !take_number(payload, ' ', m.id) ||
      (m.answer && !take_word(m.answerer))) {
    return std::nullopt;
  }
  m.body = payload;
  return m;
}

std::string event_message(std::string_view frame) {
  std::string out;
  out.reserve(2 + frame.size());
  out += "e ";
  out += frame;
  return out;
}

std::optional<ChannelMessage> parse_channel_message(std::string_view payload) {
  ChannelMessage m;
  if (payload.starts_with("e ")) {
    m.frame = payload.substr(2);
    if (m.frame.empty()) return std::nullopt;
    return m;
  }
  if (!payload.starts_with("p ")) return std::nullopt;
  payload.remove_prefix(2);
  if (!take_number(payload, ' ', m.offset) || m.offset == 0) return std::nullopt;
  const std::size_t sp = payload.find(' ');
  if (sp == std::string_view::npos || sp == 0) return std::nullopt;
  m.epoch = payload.substr(0, sp);
  m.frame = payload.substr(sp + 1);
  if (m.frame.empty()) return std::nullopt;
  m.publication = true;
  return m;
}

std::optional<ReadReply> parse_read_reply(const redis::Reply& reply) {
  using T = redis::Reply::Type;
  const auto& e = reply.elements;
  if (reply.type != T::array || e.size() < 3 || e[0].type != T::string || e[1].type != T::integer ||
      e[2].type != T::integer || e[1].integer < 0 || e[2].integer < 1) {
    return std::nullopt;
  }
  ReadReply r;
  r.epoch = e[0].str;
  r.top = static_cast<std::uint64_t>(e[1].integer);
  r.first = static_cast<std::uint64_t>(e[2].integer);
  // frames hold offsets first .. first + n - 1, which must end at top.
  const std::size_t n = e.size() - 3;
  if (n == 0 ? r.first != r.top + 1 : r.first + n - 1 != r.top) return std::nullopt;
  r.frames.reserve(n);
  for (std::size_t i = 3; i < e.size(); ++i) {
    if (e[i].type != T::string) return std::nullopt;
    r.frames.push_back(e[i].str);
  }
  return r;
}

std::string presence_body(std::string_view user, std::string_view info_json) {
  std::string out = std::to_string(user.size());
  out += ' ';
  out += user;
  out += info_json;
  return out;
}

std::optional<PresenceValue> parse_presence_value(std::string_view value) {
  PresenceValue v;
  std::size_t user_len = 0;
  if (!take_number(value, ' ', v.expires_ms) || !take_number(value, ' ', user_len) ||
      user_len > value.size()) {
    return std::nullopt;
  }
  v.user = value.substr(0, user_len);
  v.info_json = value.substr(user_len);
  return v;
}

std::string node_body(std::uint64_t connections, std::string_view host, std::uint16_t port,
                      const NodeStats& stats) {
  std::string out = std::to_string(connections);
  for (const std::string& field :
       {std::to_string(port), std::string(host), std::to_string(stats.clients),
        std::to_string(stats.users), std::to_string(stats.rooms),
        std::to_string(stats.subscriptions), std::to_string(stats.started_unix_s),
        stats.version.empty() ? std::string("-") : stats.version}) {
    out += ' ';
    out += field;
  }
  return out;
}

std::optional<NodeValue> parse_node_value(std::string_view value) {
  NodeValue v;
  if (!take_number(value, ' ', v.expires_ms) || !take_number(value, ' ', v.connections) ||
      !take_number(value, ' ', v.port)) {
    return std::nullopt;
  }
  const std::size_t sp = value.find(' ');
  v.host = value.substr(0, sp);
  if (v.host.empty()) return std::nullopt;
  if (sp == std::string_view::npos) return v;  // an entry without stats
  value.remove_prefix(sp + 1);
  NodeStats& s = v.stats;
  if (!take_number(value, ' ', s.clients) || !take_number(value, ' ', s.users) ||
      !take_number(value, ' ', s.rooms) || !take_number(value, ' ', s.subscriptions) ||
      !take_number(value, ' ', s.started_unix_s) || value.empty() ||
      value.find(' ') != std::string_view::npos) {
    return std::nullopt;
  }
  if (value != "-") s.version = value;
  return v;
}

}  // namespace herald::gateway::broker::redis_schema
