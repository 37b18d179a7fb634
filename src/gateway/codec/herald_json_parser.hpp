// Herald's JSON command lines (docs/protocol.md), read into the command
// values of protocol/command.hpp. A frame may hold several commands, one
// JSON object per line ('\n'), so a client can batch; each line is one
// object with a positive integer "id" and exactly one other key naming the
// command, whose value is an object of parameters. The codec
// (codec/herald_json.hpp) runs it per line; the fuzz target ws_command
// runs it on anything.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "core/result.hpp"
#include "gateway/protocol/command.hpp"

namespace herald::gateway::codec {

using ParseResult = std::variant<protocol::Command, protocol::CommandError>;

// Parses lines. Holds a reusable JSON parser, so it is cheap to call per
// line; not thread-safe (one per shard).
class CommandParser {
 public:
  // Lines longer than max_line_bytes are refused without being parsed.
  explicit CommandParser(std::size_t max_line_bytes);
  ~CommandParser();
  CommandParser(const CommandParser&) = delete;
  CommandParser& operator=(const CommandParser&) = delete;

  [[nodiscard]] ParseResult parse(std::string_view line);

  // Parses a JSON document as the "data" of a publication: returns it
  // re-serialized compactly, or a message when it is not JSON.
  [[nodiscard]] herald::Result<std::string, std::string> normalize_json(std::string_view text);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace herald::gateway::codec
