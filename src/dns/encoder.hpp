// Message encoding into one accumulating buffer (dns_erlang's lesson: the
// header's 12 octets are reserved first, sections are appended in place,
// RDLENGTH and the counts are patched afterwards; nothing is built apart and
// copied in).
//
// Truncation (RFC 2181 §9, RFC 9471): with a size limit, records that do not
// fit are dropped from the first one that does not fit onwards, and TC is
// set. The question and the OPT record are always kept (room for OPT is
// reserved before the first record); if even they do not fit, encoding
// fails with message_too_long.
#pragma once

#include <cstdint>
#include <vector>

#include "dns/detail/compression.hpp"
#include "dns/error.hpp"
#include "dns/message.hpp"

namespace herald::dns {

struct EncodeOptions {
  std::size_t max_size = 65535;  // e.g. the client's EDNS UDP size, or 512
  bool compress = true;
};

// Reusable: holds the compression map (4 KiB, no heap) between messages.
class Encoder {
 public:
  // Replaces `out` with the encoded message (reusing its capacity) and
  // returns the number of records dropped by truncation.
  Result<std::size_t> encode(const Message& m, std::vector<std::uint8_t>& out,
                             const EncodeOptions& opt = {});

 private:
  detail::CompressionMap map_;
};

// One-shot convenience.
Result<std::vector<std::uint8_t>> encode(const Message& m, const EncodeOptions& opt = {});

}  // namespace herald::dns
