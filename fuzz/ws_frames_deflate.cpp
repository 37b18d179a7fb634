// Fuzz target: the WebSocket frame reader with permessage-deflate
// negotiated (gateway/ws/frame_reader with enable_inflate(), inflating
// through gateway/ws/deflate_codec), against Beast's server-side reader with
// its own inflater on the same client bytes (tests/support/ws_frame_oracle.hpp).
// The first byte picks the message limit (16..4096 bytes), which bounds the
// inflated size too, so zip bombs reach it.
//
// The transcripts must agree as in ws_frames.cpp, except where Beast 1.81
// stops on its own inflater's faults:
// - a zlib error that names no close code (the oracle writes EOF): there
//   ours must have closed with 1007 (bytes that do not inflate) or read the
//   message (a client may end it with a final block, RFC 7692 7.2.3.4,
//   which Beast does not read);
// - 1009 on a message whose appended 00 00 ff ff still decodes to literals
//   (the block before it was left open): Beast appends the four octets
//   again for as long as inflating them yields output (read.hpp, `fin &&
//   zs.total_out == 0`), so the message grows until it is over the limit.
//   zlib appends them once (RFC 7692 7.2.2), and there ours must have read
//   the message. Found by this target: 4a 67 8d d6 inflates to 4 octets.
// And whatever ours hands out is within the limit, and text is UTF-8.
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/ws_frame_oracle.hpp"

namespace {

bool beast_zlib_stop(const herald::test::Transcript& ours, const herald::test::Transcript& beast) {
  std::size_t i = 0;
  while (i < ours.size() && i < beast.size() && ours[i] == beast[i]) ++i;
  if (i >= ours.size() || i + 1 != beast.size()) return false;
  const bool read_message = ours[i].starts_with("T:") || ours[i].starts_with("B:");
  if (beast[i] == "ERR:1009") return read_message;
  return beast[i] == "EOF" && (ours[i] == "ERR:1007" || read_message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_message = 16 + static_cast<std::size_t>(data[0]) * 16;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto ours = herald::test::frame_transcript_ours(bytes, max_message, true);
  for (const std::string& e : ours) {
    const bool text = e.starts_with("T:");
    if (!text && !e.starts_with("B:")) continue;
    if (e.size() - 2 > max_message ||
        (text && !simdjson::validate_utf8(std::string_view(e).substr(2)))) {
      std::fprintf(stderr, "a message over the limit or not UTF-8:\n%s\n",
                   herald::test::joined(ours).c_str());
      std::abort();
    }
  }
  const auto beast = herald::test::frame_transcript_beast(bytes, max_message, true);
  if (!herald::test::transcripts_agree(ours, beast) && !beast_zlib_stop(ours, beast)) {
    std::fprintf(stderr, "frame reader (deflate) differs from Beast\nours:\n%s\nBeast:\n%s\n",
                 herald::test::joined(ours).c_str(), herald::test::joined(beast).c_str());
    std::abort();
  }
  return 0;
}
