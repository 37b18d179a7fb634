// Fuzz target: the WebSocket command parser. Any bytes are split into lines
// and parsed as commands. Must never crash, and every refusal must carry a
// message; a publish's (and an rpc's) data must come back as valid JSON.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gateway/codec/herald_json_parser.hpp"
#include "gateway/codec/lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::gateway::protocol;
  using herald::gateway::codec::CommandParser;
  using herald::gateway::codec::for_each_line;
  using herald::gateway::codec::ParseResult;
  static CommandParser parser(64 * 1024);
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view frame(reinterpret_cast<const char*>(data), size);
  for_each_line(frame, [](std::string_view line) {
    ParseResult r = parser.parse(line);
    if (auto* e = std::get_if<CommandError>(&r)) {
      if (e->message.empty()) std::abort();
      return;
    }
    auto& cmd = std::get<Command>(r);
    if (cmd.id == 0) std::abort();
    if (auto* p = std::get_if<PublishCmd>(&cmd.body)) {
      if (!parser.normalize_json(p->data)) std::abort();
    }
    if (auto* rpc = std::get_if<RpcCmd>(&cmd.body); rpc && !rpc->data.empty()) {
      if (!parser.normalize_json(rpc->data)) std::abort();
    }
  });
  return 0;
}
