// A second client wire protocol for the tests, sharing nothing with
// Herald's JSON: what plugging a codec into the gateway takes (a Codec, and
// Server::add_websocket_endpoint for a socket), with nothing in
// gateway/client/ edited. A line protocol, "<id> <verb> <args>" in and
// "<id> <what> <fields>" out; pushes are "push " and the canonical line, so
// a push that skipped the codec shows. It can count its encode_push calls:
// the fan-out must call it once per publication, not once per subscriber
// (codec/codec.hpp). tests/gateway/client_core_test.cpp drives the core
// with it and no socket; fanout_alloc_test.cpp over WebSockets.
#pragma once

#include <atomic>
#include <charconv>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "gateway/codec/codec.hpp"

namespace herald::test {
namespace protocol = gateway::protocol;

// A line protocol unlike Herald's JSON: "<id> <verb> <args>" in, "<id>
// <what> <fields>" out. Pushes are "push " and the canonical line.
//   1 connect alice
//   2 subscribe lobby [<epoch> <offset>]
//   3 unsubscribe lobby
//   4 publish lobby {"n":1}
//   5 ping
class TextCodec final : public gateway::codec::Codec {
 public:
  // `pushes_encoded`, when given, counts encode_push calls.
  explicit TextCodec(std::atomic<std::uint64_t>* pushes_encoded = nullptr)
      : pushes_encoded_(pushes_encoded) {}

  // The factory Server::add_websocket_endpoint takes.
  static gateway::codec::CodecFactory factory(std::atomic<std::uint64_t>* pushes_encoded) {
    return [pushes_encoded] { return std::make_unique<TextCodec>(pushes_encoded); };
  }

  void decode(std::string_view message, gateway::codec::CommandSink& sink) override {
    std::istringstream in{std::string(message)};
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      if (!decode_line(line, sink)) return;
    }
  }

  [[nodiscard]] std::string encode_reply(std::uint32_t id,
                                         const protocol::Reply& reply) const override {
    std::string out = std::to_string(id) + ' ';
    std::visit(
        [&](const auto& r) {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, protocol::ConnectReply>) {
            out += "connected " + std::string(r.user);
          } else if constexpr (std::is_same_v<R, protocol::SubscribeReply>) {
            out += "subscribed " + r.result.epoch + ' ' + std::to_string(r.result.offset) +
                   " recovered=" + (r.result.recovered ? "1" : "0") +
                   " publications=" + std::to_string(r.result.publications.size());
          } else if constexpr (std::is_same_v<R, protocol::PublishReply>) {
            out += "published " + std::to_string(r.result.offset);
          } else {
            out += "ok";
          }
        },
        reply);
    return out;
  }
  [[nodiscard]] std::string encode_error(std::uint32_t id, protocol::ErrorCode code,
                                         std::string_view message) const override {
    // Safety: ErrorCode's underlying type is an unsigned integer.
    return std::to_string(id) + " error " + std::to_string(static_cast<unsigned>(code)) + ' ' +
           std::string(message);
  }
  [[nodiscard]] std::string encode_disconnect(std::uint16_t code, std::string_view reason,
                                              bool /*reconnect*/) const override {
    return "disconnect " + std::to_string(code) + ' ' + std::string(reason);
  }
  [[nodiscard]] std::string encode_push(std::string_view canonical) const override {
    if (pushes_encoded_ != nullptr) pushes_encoded_->fetch_add(1, std::memory_order_relaxed);
    return "push " + std::string(canonical);
  }

  // The id and verb of one of its reply lines ("2 subscribed ...").
  static bool is_reply(std::string_view line, std::uint32_t id, std::string_view what) {
    const std::string head = std::to_string(id) + ' ' + std::string(what);
    return line.substr(0, head.size()) == head;
  }

 private:
  std::atomic<std::uint64_t>* pushes_encoded_;

  static bool decode_line(const std::string& line, gateway::codec::CommandSink& sink) {
    std::istringstream words(line);
    std::string id_text, verb, room;
    words >> id_text >> verb;
    std::uint32_t id = 0;
    const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
    if (ec != std::errc() || end != id_text.data() + id_text.size() || id == 0) {
      return sink.on_refused({0, protocol::ErrorCode::bad_request, "no id"});
    }
    protocol::Command cmd{id, protocol::PingCmd{}};
    if (verb == "connect") {
      protocol::ConnectCmd c;
      words >> c.user;
      cmd.body = std::move(c);
    } else if (verb == "subscribe") {
      protocol::SubscribeCmd c;
      words >> c.room;
      protocol::StreamPosition since;
      if (words >> since.epoch >> since.offset) c.since = since;
      cmd.body = std::move(c);
    } else if (verb == "unsubscribe") {
      words >> room;
      cmd.body = protocol::UnsubscribeCmd{room};
    } else if (verb == "publish") {
      protocol::PublishCmd c;
      words >> c.room >> std::ws;
      std::getline(words, c.data);
      cmd.body = std::move(c);
    } else if (verb != "ping") {
      return sink.on_refused({id, protocol::ErrorCode::bad_request, "unknown verb " + verb});
    }
    return sink.on_command(cmd);
  }
};

}  // namespace herald::test
