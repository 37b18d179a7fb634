// Questions and resource records (RFC 1035 §4.1.2, §4.1.3):
//
//   question:  QNAME (name) | QTYPE (16) | QCLASS (16)
//
//   record:    NAME (name) | TYPE (16) | CLASS (16) | TTL (32)
//              | RDLENGTH (16) | RDATA (RDLENGTH octets)
//
// RDATA is held as its uncompressed wire form, in original case: the one
// representation every consumer can use without a parse (an answer is
// copied, a signature is computed over it, a zone file line is printed from
// it). It is valid for its type by construction: only the RDATA decoders and
// the presentation parser make it (rdata.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "dns/name.hpp"
#include "dns/types.hpp"

namespace herald::dns {

struct Question {
  Name qname;
  RRType qtype;
  RRClass qclass = rrclass::IN;
  friend bool operator==(const Question&, const Question&) = default;
};

struct Record {
  Name owner;
  RRType type;
  RRClass rclass = rrclass::IN;
  std::uint32_t ttl = 0;
  std::vector<std::uint8_t> rdata;
  friend bool operator==(const Record&, const Record&) = default;
};

}  // namespace herald::dns
