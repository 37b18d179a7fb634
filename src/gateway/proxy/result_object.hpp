// Reading a hook's result as an object: the one step every result reader
// (connect_hook, room_hooks, refresh_hook) begins with.
//
// The text is the "result" value AnswerClassifier already checked and
// re-serialized compactly. Results are read on the shards, one at a time per
// thread, so a parser per thread is reused instead of one allocated per
// answer. The object views that parser's buffer: it is valid until the same
// thread's next call, so a reader copies what it keeps before returning.
#pragma once

#include <simdjson.h>

#include <string_view>

namespace herald::gateway::proxy {

// False when `json` is not a JSON object.
[[nodiscard]] bool parse_result_object(std::string_view json, simdjson::dom::object& out);

}  // namespace herald::gateway::proxy
