#include "dns/decoder.hpp"

#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

enum class Section { answer, authority, additional };

// Which records a message may carry, checked on each record's type before
// its RDATA is decoded. A query a server answers carries almost nothing but
// its question and OPT, and RDATA decoding is the costly part (an SVCB
// record's parameters, a long TXT): a record that has no business in a
// query is refused unread, so a hostile query costs what its octets cost to
// skip. decode() admits anything (nullptr).
struct QueryRules {
  Opcode opcode;
  bool allows(Section section, RRType type, const Message& m) const {
    switch (section) {
      case Section::answer:  // NOTIFY may carry the zone's new SOA (RFC 1996 §3.7)
        return opcode == Opcode::notify && type == type::SOA;
      case Section::authority:  // an IXFR query's SOA (RFC 1995 §3)
        return opcode == Opcode::query && type == type::SOA &&
               m.questions.front().qtype == type::IXFR;
      case Section::additional:
        return type == type::OPT || type == type::TSIG;
    }
    return false;
  }
};

Error read_question(Reader& r, Question& q) {
  auto n = Name::from_wire(r);
  if (!n) return n.error();
  if (!r.has(4)) return make_error(Errc::truncated, r.position());
  q.qname = n.value();
  q.qtype = RRType{r.u16()};
  q.qclass = RRClass{r.u16()};
  return {};
}

Error read_record(Reader& r, Section section, Message& m, const QueryRules* rules) {
  std::size_t start = r.position();
  auto owner = Name::from_wire(r);
  if (!owner) return owner.error();
  if (!r.has(10)) return make_error(Errc::truncated, r.position());
  RRType type{r.u16()};
  std::uint16_t rrclass = r.u16();
  std::uint32_t ttl = r.u32();
  std::uint16_t rdlength = r.u16();
  if (!r.has(rdlength)) return make_error(Errc::truncated, r.position());
  if (rules != nullptr && !rules->allows(section, type, m))
    return make_error(Errc::records_in_query, start);
  if (type == type::OPT) {
    if (section != Section::additional) return make_error(Errc::opt_misplaced, start);
    if (m.edns) return make_error(Errc::opt_duplicate, start);
    if (!owner->is_root()) return make_error(Errc::opt_not_root, start);
    std::size_t old = r.narrow(rdlength);
    auto e = Edns::read(rrclass, ttl, r);
    r.restore(old);
    if (!e) return e.error();
    m.edns = std::move(e.value());
    return {};
  }
  auto rdata = rdata_from_wire(type, r, rdlength);
  if (!rdata) return rdata.error();
  auto& out = section == Section::answer      ? m.answers
              : section == Section::authority ? m.authority
                                              : m.additional;
  out.push_back(Record{owner.value(), type, RRClass{rrclass}, ttl, std::move(rdata.value())});
  return {};
}

Result<Message> decode_body(Reader& r, Message m, const QueryRules* rules) {
  const Header& h = m.header;
  // Every question takes at least 5 octets and every record 11: a count the
  // input cannot hold is refused before anything is reserved for it.
  if (std::size_t{h.qdcount} * 5 + (std::size_t{h.ancount} + h.nscount + h.arcount) * 11 >
      r.remaining()) {
    return make_error(Errc::truncated, r.position());
  }
  m.questions.resize(h.qdcount);
  for (auto& q : m.questions) {
    if (Error e = read_question(r, q)) return e;
  }
  // ARCOUNT often counts just the OPT record, which is not kept as a
  // Record: reserving for ARCOUNT 1 would allocate ~300 octets for nothing,
  // while for more it wastes at most that one slot.
  m.answers.reserve(h.ancount);
  m.authority.reserve(h.nscount);
  if (h.arcount > 1) m.additional.reserve(h.arcount);
  // A TSIG record signs everything before it, so it must be the very last
  // record, after OPT too (RFC 8945 §5.1): one in answer or authority, or any
  // record after one, is malformed.
  const auto tsig_last = [](const std::vector<Record>& v) {
    return !v.empty() && v.back().type == type::TSIG;
  };
  for (unsigned i = 0; i < h.ancount; ++i) {
    std::size_t at = r.position();
    if (Error e = read_record(r, Section::answer, m, rules)) return e;
    if (tsig_last(m.answers)) return make_error(Errc::tsig_not_last, at);
  }
  for (unsigned i = 0; i < h.nscount; ++i) {
    std::size_t at = r.position();
    if (Error e = read_record(r, Section::authority, m, rules)) return e;
    if (tsig_last(m.authority)) return make_error(Errc::tsig_not_last, at);
  }
  for (unsigned i = 0; i < h.arcount; ++i) {
    if (tsig_last(m.additional)) return make_error(Errc::tsig_not_last, r.position());
    if (Error e = read_record(r, Section::additional, m, rules)) return e;
  }
  if (r.remaining() != 0) return make_error(Errc::trailing_data, r.position());
  return m;
}

}  // namespace

Result<Message> decode(std::span<const std::uint8_t> wire) {
  Reader r(wire);
  if (!r.has(kHeaderSize)) return make_error(Errc::short_header, 0);
  Message m;
  m.header = Header::read(r);
  return decode_body(r, std::move(m), nullptr);
}

Result<Message> decode_query(std::span<const std::uint8_t> wire) {
  Reader r(wire);
  if (!r.has(kHeaderSize)) return make_error(Errc::short_header, 0);
  Message m;
  m.header = Header::read(r);
  const Header& h = m.header;
  if (h.qr) return make_error(Errc::qr_in_query, 2);
  auto op = static_cast<Opcode>(h.opcode);
  if (op != Opcode::query && op != Opcode::notify) return make_error(Errc::bad_opcode, 2);
  if (h.tc) return make_error(Errc::tc_in_query, 2);
  if (h.qdcount != 1) return make_error(Errc::bad_qdcount, 4);
  if (op == Opcode::query && h.ancount != 0) return make_error(Errc::records_in_query, 6);
  const QueryRules rules{op};
  return decode_body(r, std::move(m), &rules);
}

}  // namespace herald::dns
