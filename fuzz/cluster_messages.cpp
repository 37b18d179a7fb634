// Fuzz target: what a cluster node reads from Redis (gateway/broker/
// redis_schema): room channel messages, presence values, node registry
// entries and survey messages, and Redis Cluster redirections
// (cluster_slots). The first byte picks the parser ('R': redirections; else
// by its value mod 4). Must never crash; what is accepted must round-trip.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gateway/broker/redis_schema.hpp"
#include "redis/cluster_slots.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace rs = herald::gateway::broker::redis_schema;
  if (size == 0) return 0;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] == 'R') {
    using herald::redis::Redirect;
    herald::redis::Reply reply;
    reply.type = herald::redis::Reply::Type::error;
    reply.str = std::string(in);
    auto r = herald::redis::parse_redirect(reply);
    if (!r) return 0;
    // Written again (IPv6 hosts bracketed), it parses to the same.
    reply.str = (r->kind == Redirect::Kind::moved ? "MOVED " : "ASK ") + std::to_string(r->slot) +
                " " +
                (r->to.host.find(':') != std::string::npos ? "[" + r->to.host + "]" : r->to.host) +
                ":" + std::to_string(r->to.port);
    auto again = herald::redis::parse_redirect(reply);
    if (!again || again->kind != r->kind || again->slot != r->slot || !(again->to == r->to))
      std::abort();
    return 0;
  }
  switch (data[0] % 4) {
    case 0: {
      auto m = rs::parse_channel_message(in);
      if (!m) break;
      if (m->frame.empty()) std::abort();
      std::string again = m->publication ? "p " + std::to_string(m->offset) + " " +
                                               std::string(m->epoch) + " " + std::string(m->frame)
                                         : "e " + std::string(m->frame);
      if (again != in) std::abort();
      break;
    }
    case 1: {
      auto v = rs::parse_presence_value(in);
      if (!v) break;
      std::string again =
          std::to_string(v->expires_ms) + " " + rs::presence_body(v->user, v->info_json);
      if (again != in) std::abort();
      break;
    }
    case 2: {
      auto v = rs::parse_node_value(in);
      if (!v) break;
      std::string again = std::to_string(v->expires_ms) + " " +
                          rs::node_body(v->connections, v->host, v->port, v->stats);
      // An entry of the four fields before the stats is read with zero
      // stats, which are written after them.
      const bool legacy = std::count(in.begin(), in.end(), ' ') == 3;
      if (legacy ? !again.starts_with(std::string(in) + ' ') : again != in) std::abort();
      break;
    }
    case 3: {
      auto m = rs::parse_survey_message(in);
      if (!m) break;
      std::string again = m->answer ? rs::survey_answer(m->asker, m->id, m->answerer, m->body)
                                    : rs::survey_question(m->asker, m->id, m->body);
      if (again != in) std::abort();
      break;
    }
  }
  return 0;
}
