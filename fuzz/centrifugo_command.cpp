// Fuzz target: Centrifugo's client protocol codec (codec/centrifugo_json.hpp).
// Any bytes are split into lines and parsed as commands: must never crash,
// every refusal carries a message, a command has an id, and a publish's
// (and an rpc's) data is valid JSON. The same bytes are also handed to
// encode_push, which reads canonical lines back: whatever it is given it
// returns one line (no newline inside) or nothing.
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gateway/codec/centrifugo_json.hpp"
#include "gateway/codec/lines.hpp"

namespace {

bool is_json(std::string_view text) {
  static simdjson::dom::parser parser;
  simdjson::dom::element e;
  return parser.parse(text.data(), text.size()).get(e) == simdjson::SUCCESS;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::gateway::protocol;
  using herald::gateway::codec::CentrifugoCommandParser;
  using herald::gateway::codec::CentrifugoJson;
  using herald::gateway::codec::CentrifugoParse;
  using herald::gateway::codec::for_each_line;
  static CentrifugoCommandParser parser(64 * 1024);
  static const CentrifugoJson codec(64 * 1024, std::chrono::seconds(15));
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view frame(reinterpret_cast<const char*>(data), size);
  for_each_line(frame, [](std::string_view line) {
    CentrifugoParse r = parser.parse(line);
    if (auto* e = std::get_if<CommandError>(&r)) {
      if (e->message.empty()) std::abort();
      return;
    }
    auto* cmd = std::get_if<Command>(&r);
    if (cmd == nullptr) return;  // a pong or a send
    if (cmd->id == 0) std::abort();
    if (auto* p = std::get_if<PublishCmd>(&cmd->body)) {
      if (!is_json(p->data)) std::abort();
    }
    if (auto* rpc = std::get_if<RpcCmd>(&cmd->body); rpc && !rpc->data.empty()) {
      if (!is_json(rpc->data)) std::abort();
    }
  });
  if (codec.encode_push(frame).find('\n') != std::string::npos) std::abort();
  return 0;
}
