// C1 of docs/benchmarks.md: what EVALSHA saves Redis per publish.
//
// The publish script (redis_schema::kPublishScript) with the arguments a
// node sends, pipelined in batches against one redis-server: each round
// (phase) sends its publishes as EVAL <text>, then as EVALSHA <sha1>, to two sets
// of rooms of the same shape, so both forms run under the same conditions
// in the same run. Redis's own accounting (INFO commandstats, usec_per_call
// of eval and evalsha, reset first with CONFIG RESETSTAT) gives the CPU
// each form costs inside Redis's command call, and INFO cpu read around
// each phase (the main thread's CPU, which also reads and parses the
// longer EVAL requests) the whole cost; the request sizes are counted here.
//
//   bench_cluster_scripts --redis 127.0.0.1:6399 [--publishes 200000]
//                         [--batch 100] [--rooms 100] [--data-bytes 64]
//                         [--phase 10000]
//
// It writes keys under "bench:" in the server's current database; point it
// at a scratch redis-server.
#include <hiredis/hiredis.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/values.hpp"
#include "gateway/broker/redis_schema.hpp"

namespace {

using herald::gateway::broker::redis_schema::frame_parts;
using herald::gateway::broker::redis_schema::kPublishScript;
using herald::gateway::broker::redis_schema::room_keys;

struct Args {
  herald::config::Endpoint redis{"127.0.0.1", 6379};
  std::uint64_t publishes = 200'000;  // per form
  std::uint64_t batch = 100;
  std::uint64_t rooms = 100;
  std::uint64_t data_bytes = 64;
  std::uint64_t phase = 10'000;  // publishes per phase of one form
};

bool parse_args(int argc, char** argv, Args& a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i], value = argv[i + 1];
    auto number = [&](std::uint64_t& out) {
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
      return ec == std::errc() && p == value.data() + value.size() && out > 0;
    };
    bool ok = false;
    if (flag == "--redis") {
      auto ep = herald::config::parse_endpoint(value);
      ok = ep.has_value();
      if (ok) a.redis = *ep;
    } else if (flag == "--publishes") {
      ok = number(a.publishes);
    } else if (flag == "--batch") {
      ok = number(a.batch);
    } else if (flag == "--rooms") {
      ok = number(a.rooms);
    } else if (flag == "--data-bytes") {
      ok = number(a.data_bytes);
    } else if (flag == "--phase") {
      ok = number(a.phase);
    }
    if (!ok) {
      std::fprintf(stderr, "bad argument %s %s\n", argv[i], argv[i + 1]);
      return false;
    }
  }
  return argc % 2 == 1;
}

// The publish command of a node for `room`, as EVAL or EVALSHA.
std::vector<std::string> publish_command(bool by_sha, const std::string& room,
                                         const std::string& data) {
  const auto keys = room_keys("bench:", room);
  auto parts = frame_parts(room, data, "");
  return {by_sha ? "EVALSHA" : "EVAL",
          by_sha ? kPublishScript.sha() : kPublishScript.text(),
          "2",
          keys.meta,
          keys.history,
          keys.channel,
          "bench-epoch",
          "100",
          "300000",
          "86400000",
          std::move(parts.head),
          std::move(parts.tail)};
}

// Appends one command to hiredis's output buffer (sent by the next read).
bool append(redisContext* c, const std::vector<std::string>& argv) {
  std::vector<const char*> ptrs;
  std::vector<std::size_t> lens;
  for (const auto& s : argv) {
    ptrs.push_back(s.data());
    lens.push_back(s.size());
  }
  return redisAppendCommandArgv(c, static_cast<int>(argv.size()), ptrs.data(), lens.data()) ==
         REDIS_OK;
}

redisReply* command(redisContext* c, const std::vector<std::string>& argv) {
  void* raw = nullptr;
  if (!append(c, argv) || redisGetReply(c, &raw) != REDIS_OK) return nullptr;
  return static_cast<redisReply*>(raw);
}

// Sends `batch` commands in one pipeline and reads every reply; false on an
// error reply (printed).
bool pipeline(redisContext* c, const std::vector<std::vector<std::string>>& batch) {
  for (const auto& argv : batch)
    if (!append(c, argv)) return false;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK) {
      std::fprintf(stderr, "connection error: %s\n", c->errstr);
      return false;
    }
    auto* r = static_cast<redisReply*>(raw);
    const bool bad = r->type == REDIS_REPLY_ERROR;
    if (bad) std::fprintf(stderr, "%s: %s\n", batch[i][0].c_str(), r->str);
    freeReplyObject(r);
    if (bad) return false;
  }
  return true;
}

// used_cpu_sys_main_thread + used_cpu_user_main_thread of INFO cpu, in
// seconds (the thread that parses requests and runs scripts).
double main_thread_cpu(redisContext* c) {
  redisReply* r = command(c, {"INFO", "cpu"});
  if (r == nullptr) return 0;
  double total = 0;
  if (r->type == REDIS_REPLY_STRING) {
    const std::string_view text(r->str, r->len);
    for (std::string_view key : {"used_cpu_sys_main_thread:", "used_cpu_user_main_thread:"}) {
      const std::size_t at = text.find(key);
      if (at != std::string_view::npos)
        total += std::strtod(std::string(text.substr(at + key.size(), 32)).c_str(), nullptr);
    }
  }
  freeReplyObject(r);
  return total;
}

// "cmdstat_evalsha:calls=10,usec=55,usec_per_call=5.50,..." -> field values.
std::map<std::string, std::map<std::string, double>> commandstats(redisContext* c) {
  std::map<std::string, std::map<std::string, double>> out;
  redisReply* r = command(c, {"INFO", "commandstats"});
  if (r == nullptr || r->type != REDIS_REPLY_STRING) {
    if (r != nullptr) freeReplyObject(r);
    return out;
  }
  std::string_view text(r->str, r->len);
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.starts_with("cmdstat_")) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto& fields = out[std::string(line.substr(8, colon - 8))];
    std::string_view rest = line.substr(colon + 1);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      std::string_view kv = rest.substr(0, comma);
      rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
      const std::size_t eq = kv.find('=');
      if (eq == std::string_view::npos) continue;
      fields[std::string(kv.substr(0, eq))] =
          std::strtod(std::string(kv.substr(eq + 1)).c_str(), nullptr);
    }
  }
  freeReplyObject(r);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse_args(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: bench_cluster_scripts --redis host:port [--publishes N] [--batch N] "
                 "[--rooms N] [--data-bytes N] [--phase N]\n");
    return 2;
  }
  redisContext* c = redisConnect(a.redis.host.c_str(), a.redis.port);
  if (c == nullptr || c->err != 0) {
    std::fprintf(stderr, "cannot connect to %s: %s\n", a.redis.to_string().c_str(),
                 c != nullptr ? c->errstr : "out of memory");
    return 1;
  }
  const std::string data = "\"" + std::string(a.data_bytes, 'x') + "\"";
  // Loaded first, so that every EVALSHA hits the cache (the steady state).
  if (redisReply* r = command(c, {"SCRIPT", "LOAD", kPublishScript.text()})) freeReplyObject(r);
  if (redisReply* r = command(c, {"CONFIG", "RESETSTAT"})) freeReplyObject(r);
  std::uint64_t bytes[2] = {0, 0};
  double cpu[2] = {0, 0};  // Redis main thread CPU seconds spent in each form's phases
  // Phases of `phase` publishes alternate between the forms; each phase is
  // pipelined in batches and timed by Redis's CPU counters around it.
  for (std::uint64_t done = 0; done < a.publishes; done += a.phase) {
    for (int by_sha = 0; by_sha < 2; ++by_sha) {
      const double before = main_thread_cpu(c);
      const std::uint64_t end = std::min(done + a.phase, a.publishes);
      for (std::uint64_t from = done; from < end; from += a.batch) {
        std::vector<std::vector<std::string>> batch;
        for (std::uint64_t i = from; i < std::min(from + a.batch, end); ++i) {
          const std::string room = (by_sha != 0 ? "sha:" : "eval:") + std::to_string(i % a.rooms);
          batch.push_back(publish_command(by_sha != 0, room, data));
          for (const auto& arg : batch.back()) bytes[by_sha] += arg.size();
        }
        if (!pipeline(c, batch)) return 1;
      }
      cpu[by_sha] += main_thread_cpu(c) - before;
    }
  }
  auto stats = commandstats(c);
  redisFree(c);
  const double eval = stats["eval"]["usec_per_call"], sha = stats["evalsha"]["usec_per_call"];
  std::printf("publishes per form   %llu (batches of %llu, %llu rooms, data %llu bytes)\n",
              static_cast<unsigned long long>(a.publishes),
              static_cast<unsigned long long>(a.batch), static_cast<unsigned long long>(a.rooms),
              static_cast<unsigned long long>(a.data_bytes));
  std::printf("EVAL     calls %.0f  usec_per_call %.2f  argument bytes per call %.0f\n",
              stats["eval"]["calls"], eval,
              static_cast<double>(bytes[0]) / static_cast<double>(a.publishes));
  std::printf("EVALSHA  calls %.0f  usec_per_call %.2f  argument bytes per call %.0f\n",
              stats["evalsha"]["calls"], sha,
              static_cast<double>(bytes[1]) / static_cast<double>(a.publishes));
  if (sha > 0) std::printf("ratio EVAL / EVALSHA usec_per_call  %.2f\n", eval / sha);
  const double n = static_cast<double>(a.publishes);
  std::printf(
      "Redis main-thread CPU per publish (INFO cpu, request parsing included): "
      "EVAL %.2f us, EVALSHA %.2f us, ratio %.2f\n",
      cpu[0] / n * 1e6, cpu[1] / n * 1e6, cpu[1] > 0 ? cpu[0] / cpu[1] : 0.0);
  return 0;
}
