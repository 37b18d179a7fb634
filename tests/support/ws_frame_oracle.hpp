// The plain twin of the WebSocket frame reader (src/gateway/ws/frame_reader):
// Beast's own server-side reader, fed the same client bytes through its test
// stream. Both readers' findings are written as a transcript of events:
//   T:<text>  B:<binary>  PING:<payload>  PONG  CLOSE:<code>:<reason>
//   ERR:<close code the server would send>  EOF (input ended mid-frame or
//   between frames)  ZLIB (Beast's inflater refused the bytes and named no
//   close code)
// ending at CLOSE, ERR or EOF. transcripts_agree() compares two, allowing
// exactly the two places where the readers may differ (see there).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <boost/beast/zlib/error.hpp>
#include <simdjson.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/ws/frame_reader.hpp"

namespace herald::test {

using Transcript = std::vector<std::string>;

inline std::string joined(const Transcript& t) {
  std::string out;
  for (const std::string& e : t) out += e + "\n";
  return out;
}

// `deflate`: permessage-deflate was negotiated (with client_no_context_takeover).
inline Transcript frame_transcript_ours(std::string bytes, std::size_t max_message,
                                        bool deflate = false) {
  namespace ws = gateway::ws;
  ws::FrameReader reader(max_message);
  if (deflate) reader.enable_inflate();
  Transcript out;
  std::size_t pos = 0;
  for (;;) {
    const ws::ReadResult r = reader.next(std::span<char>(bytes.data() + pos, bytes.size() - pos));
    pos += r.consumed;
    switch (r.event) {
      case ws::ReadEvent::need_more:
        out.emplace_back("EOF");
        return out;
      case ws::ReadEvent::text:
        out.push_back("T:" + std::string(r.payload));
        break;
      case ws::ReadEvent::binary:
        out.push_back("B:" + std::string(r.payload));
        break;
      case ws::ReadEvent::ping:
        out.push_back("PING:" + std::string(r.payload));
        break;
      case ws::ReadEvent::pong:
        out.emplace_back("PONG");
        break;
      case ws::ReadEvent::fragment:
        break;
      case ws::ReadEvent::close:
        out.push_back("CLOSE:" + std::to_string(r.close_code) + ":" + std::string(r.payload));
        return out;
      case ws::ReadEvent::error:
        out.push_back("ERR:" + std::to_string(r.close_code));
        return out;
    }
  }
}

inline Transcript frame_transcript_beast(const std::string& bytes, std::size_t max_message,
                                         bool deflate = false) {
  namespace beast = boost::beast;
  namespace websocket = beast::websocket;
  boost::asio::io_context ioc;
  beast::test::stream server(ioc);
  beast::test::stream client(ioc);
  server.connect(client);
  server.append(
      "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n");
  server.append(deflate ? "Sec-WebSocket-Extensions: permessage-deflate; "
                          "client_no_context_takeover\r\n\r\n"
                        : "\r\n");
  server.append(bytes);
  client.close();  // the input ends after `bytes`
  websocket::stream<beast::test::stream&> ws(server);
  if (deflate) {
    websocket::permessage_deflate pmd;
    pmd.server_enable = true;
    ws.set_option(pmd);
  }
  ws.accept();
  ws.read_message_max(max_message);
  Transcript out;
  ws.control_callback([&out](websocket::frame_type kind, beast::string_view payload) {
    if (kind == websocket::frame_type::ping) out.push_back("PING:" + std::string(payload));
    if (kind == websocket::frame_type::pong) out.emplace_back("PONG");
  });
  for (;;) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    ws.read(buffer, ec);
    if (!ec) {
      const auto data = buffer.cdata();
      // Safety: a flat_buffer's readable bytes are one contiguous char range.
      const std::string message(static_cast<const char*>(data.data()), data.size());
      out.push_back((ws.got_text() ? "T:" : "B:") + message);
      continue;
    }
    if (ec == websocket::error::closed) {
      const websocket::close_reason& reason = ws.reason();
      const unsigned code = reason.code == websocket::close_code::none ? 1005u : reason.code;
      out.push_back("CLOSE:" + std::to_string(code) + ":" +
                    std::string(reason.reason.data(), reason.reason.size()));
    } else if (ec == websocket::error::message_too_big) {
      out.emplace_back("ERR:1009");
    } else if (ec == websocket::error::bad_frame_payload ||
               ec == websocket::error::bad_close_payload) {
      out.emplace_back("ERR:1007");
    } else if (ec.category() ==
               websocket::make_error_code(websocket::error::bad_opcode).category()) {
      out.emplace_back("ERR:1002");
    } else if (ec.category() ==
               beast::zlib::make_error_code(beast::zlib::error::general).category()) {
      out.emplace_back("ZLIB");
    } else {
      out.emplace_back("EOF");  // the input ended
    }
    return out;
  }
}

// Equal, but for the two places where Beast 1.81 and our reader may differ
// and both are within RFC 6455:
// - Beast checks a text frame's UTF-8 as its bytes arrive, ours when the
//   frame is whole: on input cut inside a frame with invalid bytes, Beast
//   says ERR:1007 where ours says EOF (it never saw the whole frame).
// - Beast misses a message that ends inside a code point when its last
//   fragment is empty, and delivers the invalid text; RFC 6455 8.1 says to
//   fail (ours: ERR:1007).
inline bool transcripts_agree(const Transcript& ours, const Transcript& beast) {
  if (ours == beast) return true;
  std::size_t i = 0;
  while (i < ours.size() && i < beast.size() && ours[i] == beast[i]) ++i;
  if (i >= ours.size() || i >= beast.size()) return false;
  if (ours[i] == "EOF" && beast[i] == "ERR:1007" && i + 1 == ours.size()) return true;
  if (ours[i] == "ERR:1007" && beast[i].starts_with("T:") &&
      !simdjson::validate_utf8(std::string_view(beast[i]).substr(2))) {
    return true;
  }
  return false;
}

}  // namespace herald::test
