// Reading a JSON command's parameters by name, for the JSON codecs
// (Herald's, codec/herald_json_parser.cpp; Centrifugo's,
// codec/centrifugo_json_parser.cpp): each read either succeeds, is absent
// (and optional), or fails with one message naming the field and what was
// expected, such as "subscribe.since.offset: expected an unsigned integer".
// Both protocols word their refusals the same way, so a client author
// reads the same kind of message whichever endpoint they speak.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/protocol/command.hpp"

namespace herald::gateway::codec {

// One command line as a JSON object, with the refusals both protocols
// share: over `max_line_bytes` (refused unparsed), not JSON, not an
// object. False with `error.message` set otherwise; the object's values
// live in `parser` until its next parse.
[[nodiscard]] bool parse_command_object(simdjson::dom::parser& parser, std::string_view line,
                                        std::size_t max_line_bytes, simdjson::dom::object& out,
                                        protocol::CommandError& error);

struct JsonFields {
  std::string_view method;        // the command, the first part of every message
  protocol::CommandError* error;  // set on the first failure

  // Records "<method>.<field>: expected <expected>" as a bad_request; false.
  bool fail(std::string_view field, std::string_view expected) const;

  // A string field; absent is a failure when `required`.
  bool string(simdjson::dom::object obj, std::string_view field, std::string& out,
              bool required) const;
  // An unsigned integer up to `max`; `out` stays unset when absent.
  bool uint(simdjson::dom::object obj, std::string_view field, std::optional<std::uint64_t>& out,
            std::uint64_t max) const;
  // A signed integer in [min, max]; `out` stays unset when absent.
  bool int_in(simdjson::dom::object obj, std::string_view field, std::optional<std::int64_t>& out,
              std::int64_t min, std::int64_t max) const;
  bool boolean(simdjson::dom::object obj, std::string_view field, bool& out) const;
  // An object field; `out` stays unset when absent.
  bool object(simdjson::dom::object obj, std::string_view field,
              std::optional<simdjson::dom::object>& out) const;
  // Any JSON value, re-serialized compactly (so it can be passed on as it
  // is, with no newline in it); `out` stays empty when the field is absent.
  void any_json(simdjson::dom::object obj, std::string_view field, std::string& out) const;
};

}  // namespace herald::gateway::codec
