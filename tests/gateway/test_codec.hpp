// A second client wire protocol for the tests: what plugging a codec into
// the gateway takes (Server::add_websocket_endpoint), with nothing in
// gateway/client/ edited. It reads and answers commands as Herald's JSON
// does, so the tests' clients can drive it, and wraps every push as
// {"test":<the canonical line>}, so a push that skipped the codec shows.
// It counts its encode_push calls: the fan-out must call it once per
// publication, not once per subscriber (codec/codec.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gateway/codec/codec.hpp"
#include "gateway/codec/herald_json.hpp"

namespace herald::test {

class TestCodec final : public gateway::codec::Codec {
 public:
  TestCodec(std::size_t max_line_bytes, std::atomic<std::uint64_t>& pushes_encoded)
      : json_(max_line_bytes), pushes_encoded_(pushes_encoded) {}

  void decode(std::string_view message, gateway::codec::CommandSink& sink) override {
    json_.decode(message, sink);
  }
  [[nodiscard]] std::string encode_reply(std::uint32_t id,
                                         const gateway::protocol::Reply& reply) const override {
    return json_.encode_reply(id, reply);
  }
  [[nodiscard]] std::string encode_error(std::uint32_t id, gateway::protocol::ErrorCode code,
                                         std::string_view message) const override {
    return json_.encode_error(id, code, message);
  }
  [[nodiscard]] std::string encode_disconnect(std::uint16_t code, std::string_view reason,
                                              bool reconnect) const override {
    return json_.encode_disconnect(code, reason, reconnect);
  }
  [[nodiscard]] std::string encode_push(std::string_view canonical) const override {
    pushes_encoded_.fetch_add(1, std::memory_order_relaxed);
    std::string out = R"({"test":)";
    out += canonical;
    out += '}';
    return out;
  }

  // The factory Server::add_websocket_endpoint takes.
  static gateway::codec::CodecFactory factory(std::size_t max_line_bytes,
                                              std::atomic<std::uint64_t>& pushes_encoded) {
    return [max_line_bytes, &pushes_encoded] {
      return std::make_unique<TestCodec>(max_line_bytes, pushes_encoded);
    };
  }

 private:
  gateway::codec::HeraldJson json_;
  std::atomic<std::uint64_t>& pushes_encoded_;
};

}  // namespace herald::test
