#include "gateway/ws/deflate_codec.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace herald::gateway::ws {
namespace {

// Raw deflate (negative: no zlib header or trailer, RFC 7692 §7.2) with the
// largest window, which deflate_offer.cpp promises no smaller than.
constexpr int kRawWindowBits = -15;
constexpr int kMemLevel = 8;  // zlib's default

Bytef* in_bytes(std::string_view s) {
  // Safety: zlib's next_in is non-const only for its old API; it never
  // writes through it. Bytef is unsigned char, the same object bytes.
  return reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
}

Bytef* out_bytes(std::string& s, std::size_t at) {
  // Safety: the string's own bytes, viewed as the unsigned octets zlib
  // writes.
  return reinterpret_cast<Bytef*>(s.data() + at);
}

uInt chunk(std::size_t n) {
  // Safety: clamped to uInt's range first; zlib takes the rest next call.
  return static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
}

// One thread's deflater, reset before each piece (no context kept).
class Deflater {
 public:
  Deflater() {
    if (deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kRawWindowBits, kMemLevel,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("permessage-deflate: zlib deflateInit2 failed (out of memory?)");
    }
  }
  ~Deflater() { deflateEnd(&z_); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  std::string compress(std::string_view text) {
    deflateReset(&z_);
    std::string out;
    // deflateBound covers Z_FINISH's output; a sync flush adds at most the
    // empty stored block and the partial byte before it.
    out.resize(deflateBound(&z_, text.size()) + 8);
    z_.next_in = in_bytes(text);
    z_.avail_in = chunk(text.size());
    std::size_t used = 0;
    for (;;) {
      z_.next_out = out_bytes(out, used);
      z_.avail_out = chunk(out.size() - used);
      const uInt before = z_.avail_out;
      const int rc = deflate(&z_, Z_SYNC_FLUSH);
      used += before - z_.avail_out;
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw std::runtime_error("permessage-deflate: zlib deflate failed");
      }
      // Done when all input is taken and the flush left output room unused.
      if (z_.avail_in == 0 && z_.avail_out != 0) break;
      if (z_.avail_out == 0) out.resize(out.size() * 2);
      // Safety: what is left of the input after zlib took the rest.
      z_.avail_in = chunk(text.size() - static_cast<std::size_t>(z_.next_in - in_bytes(text)));
    }
    out.resize(used);
    return out;
  }

 private:
  z_stream z_{};
};

// One thread's inflater, reset before each message (the client was told
// client_no_context_takeover).
class Inflater {
 public:
  Inflater() {
    if (inflateInit2(&z_, kRawWindowBits) != Z_OK) {
      throw std::runtime_error("permessage-deflate: zlib inflateInit2 failed (out of memory?)");
    }
  }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  InflateStatus inflate_message(std::string_view compressed, std::size_t max_bytes,
                                std::string& out) {
    inflateReset(&z_);
    out.clear();
    // The output never holds more than max_bytes + 1: one byte over the
    // limit is enough to know it is over.
    const std::size_t cap = max_bytes + 1;
    std::size_t used = 0;
    const std::array<std::string_view, 2> inputs{compressed, kDeflateTail};
    bool ended = false;  // a final block: whatever follows is ignored
    for (const std::string_view input : inputs) {
      if (ended) break;
      z_.next_in = in_bytes(input);
      z_.avail_in = chunk(input.size());
      // Until zlib took all of this input and stopped short of the end of
      // the output (so it holds nothing more to write).
      do {
        if (used == out.size()) out.resize(std::min(cap, std::max<std::size_t>(256, used * 2)));
        z_.next_out = out_bytes(out, used);
        z_.avail_out = chunk(out.size() - used);
        const uInt before = z_.avail_out;
        const int rc = inflate(&z_, Z_SYNC_FLUSH);
        used += before - z_.avail_out;
        if (used > max_bytes) return InflateStatus::too_big;
        ended = rc == Z_STREAM_END;
        if (ended) break;
        if (rc != Z_OK && rc != Z_BUF_ERROR) return InflateStatus::corrupt;
        // No progress with input and room left: zlib is stuck.
        if (rc == Z_BUF_ERROR && z_.avail_in != 0 && z_.avail_out != 0) {
          return InflateStatus::corrupt;
        }
      } while (z_.avail_in != 0 || z_.avail_out == 0);
    }
    out.resize(used);
    return InflateStatus::ok;
  }

 private:
  z_stream z_{};
};

}  // namespace

std::string deflate_piece(std::string_view text) {
  thread_local Deflater deflater;
  return deflater.compress(text);
}

InflateStatus inflate_message(std::string_view compressed, std::size_t max_bytes,
                              std::string& out) {
  thread_local Inflater inflater;
  return inflater.inflate_message(compressed, max_bytes, out);
}

}  // namespace herald::gateway::ws
