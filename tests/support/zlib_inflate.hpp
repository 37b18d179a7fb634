// One raw inflate by zlib itself, the way RFC 7692 7.2.2 says a receiver
// inflates a permessage-deflate message: the payload with 00 00 ff ff
// appended, inflated once with a sync flush into at most `cap` octets (a
// zip bomb stops there). No test framework: the gtest oracle
// (zlib_oracle.hpp) and the fuzz targets share it.
#pragma once

#include <zlib.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace herald::test {

inline constexpr std::string_view kZlibSyncTail{"\x00\x00\xff\xff", 4};

struct ZlibInflated {
  int rc = Z_OK;         // inflate's answer
  std::string out;       // what it produced, at most cap + 1 octets
  std::size_t left = 0;  // input it did not read
};

inline ZlibInflated zlib_inflate_once(std::string payload, std::size_t cap) {
  payload += kZlibSyncTail;
  ZlibInflated r;
  r.out.assign(cap + 1, '\0');
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) std::abort();
  // Safety: zlib reads the input and writes the output as octets; the sizes
  // are a test's, far below uInt's range.
  z.next_in = reinterpret_cast<Bytef*>(payload.data());
  z.avail_in = static_cast<uInt>(payload.size());
  z.next_out = reinterpret_cast<Bytef*>(r.out.data());
  z.avail_out = static_cast<uInt>(r.out.size());
  r.rc = inflate(&z, Z_SYNC_FLUSH);
  r.out.resize(r.out.size() - z.avail_out);
  r.left = z.avail_in;
  inflateEnd(&z);
  return r;
}

}  // namespace herald::test
