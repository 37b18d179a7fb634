// Herald's own protocol (docs/protocol.md): one JSON object per line, the
// canonical form the broker makes pushes in. This codec adapts the parser
// and encoders of protocol/ to the Codec interface; its pushes are the
// broker's lines as they are (encode_push is never called for it).
#pragma once

#include <cstddef>

#include "gateway/codec/codec.hpp"
#include "gateway/codec/herald_json_parser.hpp"

namespace herald::gateway::codec {

class HeraldJson final : public Codec {
 public:
  // Lines longer than `max_line_bytes` (client.max_command_bytes) are
  // refused unparsed.
  explicit HeraldJson(std::size_t max_line_bytes) : parser_(max_line_bytes) {}

  void decode(std::string_view message, CommandSink& sink) override;
  [[nodiscard]] std::string encode_reply(std::uint32_t id,
                                         const protocol::Reply& reply) const override;
  [[nodiscard]] std::string encode_error(std::uint32_t id, protocol::ErrorCode code,
                                         std::string_view message) const override;
  [[nodiscard]] std::string encode_disconnect(std::uint16_t code, std::string_view reason,
                                              bool reconnect) const override;
  [[nodiscard]] std::string encode_push(std::string_view canonical) const override;

 private:
  CommandParser parser_;
};

}  // namespace herald::gateway::codec
