// A DNS message (RFC 1035 §4.1):
//
//   +---------------------+
//   |        Header       |  header.hpp
//   +---------------------+
//   |       Question      |  the question for the name server
//   +---------------------+
//   |        Answer       |  RRs answering the question
//   +---------------------+
//   |      Authority      |  RRs pointing toward an authority
//   +---------------------+
//   |      Additional     |  RRs holding additional information
//   +---------------------+
//
// The OPT pseudo-record is lifted out of the additional section into `edns`
// by the decoder and written last by the encoder. Header counts are outputs
// of the encoder (taken from the vectors), and inputs only to the decoder.
#pragma once

#include <optional>
#include <vector>

#include "dns/edns.hpp"
#include "dns/header.hpp"
#include "dns/record.hpp"

namespace herald::dns {

struct Message {
  Header header;
  std::vector<Question> questions;
  std::vector<Record> answers;
  std::vector<Record> authority;
  std::vector<Record> additional;  // without OPT
  std::optional<Edns> edns;

  friend bool operator==(const Message&, const Message&) = default;

  // The 12-bit RCODE: header bits plus the OPT record's extended bits.
  std::uint16_t rcode() const noexcept {
    return static_cast<std::uint16_t>((edns ? edns->extended_rcode << 4 : 0) | header.rcode);
  }
  void set_rcode(std::uint16_t rc) {
    header.rcode = static_cast<std::uint8_t>(rc & 0xF);
    if (rc > 15 && !edns) edns.emplace();
    if (edns) edns->extended_rcode = static_cast<std::uint8_t>(rc >> 4);
  }
  // Sets the header counts from the sections (as the encoder writes them).
  void sync_counts() noexcept {
    header.qdcount = static_cast<std::uint16_t>(questions.size());
    header.ancount = static_cast<std::uint16_t>(answers.size());
    header.nscount = static_cast<std::uint16_t>(authority.size());
    header.arcount = static_cast<std::uint16_t>(additional.size() + (edns ? 1 : 0));
  }
};

}  // namespace herald::dns
