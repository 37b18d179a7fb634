// zlib used directly as the independent other end of permessage-deflate
// (RFC 7692) in tests: a client's compressor and a client's inflater, so
// the gateway's codec (src/gateway/ws/deflate_codec) is never checked
// against itself.
#pragma once

#include <gtest/gtest.h>

#include <zlib.h>

#include <string>
#include <string_view>
#include <utility>

#include "support/zlib_inflate.hpp"

namespace herald::test {

// `text` as a client's compressed payload: raw deflate at `level`, ended by
// a sync flush whose 00 00 ff ff is removed (RFC 7692 7.2.1), or
// (`final_block`) by Z_FINISH, which RFC 7692 7.2.3.4 allows too.
inline std::string zlib_deflate(const std::string& text, int level = 6, bool final_block = false) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 16, '\0');
  // Safety: zlib reads the input through a non-const pointer and never
  // writes it; both strings' bytes are viewed as the octets zlib uses; the
  // sizes are a test's, far below uInt's range.
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_NE(deflate(&z, final_block ? Z_FINISH : Z_SYNC_FLUSH), Z_STREAM_ERROR);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (!final_block) {
    EXPECT_TRUE(out.ends_with(kZlibSyncTail));
    out.resize(out.size() - kZlibSyncTail.size());
  }
  return out;
}

// A server's compressed message payload inflated as a client does: raw
// inflate with 00 00 ff ff appended (RFC 7692 7.2.2), up to 1 MiB.
inline std::string zlib_inflate(std::string payload) {
  ZlibInflated r = zlib_inflate_once(std::move(payload), (1 << 20) - 1);
  EXPECT_TRUE(r.rc == Z_OK || r.rc == Z_STREAM_END) << "zlib inflate: " << r.rc;
  EXPECT_EQ(r.left, 0u) << "zlib inflate left input";
  return std::move(r.out);
}

}  // namespace herald::test
