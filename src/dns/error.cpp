#include "dns/error.hpp"

#include <array>

namespace herald::dns {
namespace {

struct Entry {
  std::string_view message;
  Disposition disposition;
};

// Indexed by Errc; the static_assert below keeps it in step with the enum.
constexpr std::array<Entry, 24> kTable{{
    {"no error", Disposition::answer},
    {"message shorter than the 12-octet header", Disposition::drop},
    {"field runs past the end of the data", Disposition::formerr},
    {"octets left after the last record", Disposition::formerr},
    {"label longer than 63 octets", Disposition::formerr},
    {"name longer than 255 octets", Disposition::formerr},
    {"reserved label type (0x40 or 0x80)", Disposition::formerr},
    {"compression pointer to itself or forward", Disposition::formerr},
    {"compression pointer loop", Disposition::formerr},
    {"QR set in a query", Disposition::drop},
    {"TC set in a query", Disposition::formerr},
    {"query must have exactly one question", Disposition::formerr},
    {"answer or authority records in a query", Disposition::formerr},
    {"opcode not implemented", Disposition::notimp},
    {"OPT record owner is not the root", Disposition::formerr},
    {"more than one OPT record", Disposition::formerr},
    {"OPT record outside the additional section", Disposition::formerr},
    {"malformed EDNS option", Disposition::formerr},
    {"TSIG record not last in the message", Disposition::formerr},
    {"RDATA does not match its type", Disposition::formerr},
    {"RDATA longer than 65535 octets", Disposition::formerr},
    {"message too long", Disposition::formerr},
    {"presentation form does not parse", Disposition::formerr},
    {"", Disposition::answer},  // sentinel, never returned
}};
static_assert(static_cast<std::size_t>(Errc::bad_text) + 2 == kTable.size(),
              "one table entry per Errc, plus the sentinel");

}  // namespace

std::string_view error_message(Errc code) noexcept {
  return kTable[static_cast<std::size_t>(code)].message;
}

Disposition disposition(Errc code) noexcept {
  return kTable[static_cast<std::size_t>(code)].disposition;
}

std::string_view disposition_name(Disposition d) noexcept {
  switch (d) {
    case Disposition::answer:
      return "answer";
    case Disposition::formerr:
      return "FORMERR";
    case Disposition::notimp:
      return "NOTIMP";
    case Disposition::drop:
      return "drop";
  }
  return "?";
}

std::string Error::to_string() const {
  std::string s(error_message(code));
  s += " at offset ";
  s += std::to_string(offset);
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

}  // namespace herald::dns
