// Fuzz target: the WebSocket frame reader (gateway/ws/frame_reader), against
// its plain twin, Beast's server-side reader, on the same client bytes
// (tests/support/ws_frame_oracle.hpp). The two transcripts (messages,
// control frames, the close code a violation earns) must be equal. The
// first byte picks the message limit (16..4096 bytes) so both the limit and
// the frames around it are reached. transcripts_agree() names the two
// places where the readers may differ within RFC 6455.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/ws_frame_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_message = 16 + static_cast<std::size_t>(data[0]) * 16;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto ours = herald::test::frame_transcript_ours(bytes, max_message);
  const auto beast = herald::test::frame_transcript_beast(bytes, max_message);
  if (!herald::test::transcripts_agree(ours, beast)) {
    std::fprintf(stderr, "frame reader differs from Beast\nours:\n%s\nBeast:\n%s\n",
                 herald::test::joined(ours).c_str(), herald::test::joined(beast).c_str());
    std::abort();
  }
  return 0;
}
