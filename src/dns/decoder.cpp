#include "dns/decoder.hpp"

#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

enum class Section { answer, authority, additional };

Error read_question(Reader& r, Question& q) {
  auto n = Name::from_wire(r);
  if (!n) return n.error();
  if (!r.has(4)) return make_error(Errc::truncated, r.position());
  q.qname = n.value();
  q.qtype = RRType{r.u16()};
  q.qclass = RRClass{r.u16()};
  return {};
}

Error read_record(Reader& r, Section section, Message& m) {
  std::size_t start = r.position();
  auto owner = Name::from_wire(r);
  if (!owner) return owner.error();
  if (!r.has(10)) return make_error(Errc::truncated, r.position());
  RRType type{r.u16()};
  std::uint16_t rrclass = r.u16();
  std::uint32_t ttl = r.u32();
  std::uint16_t rdlength = r.u16();
  if (!r.has(rdlength)) return make_error(Errc::truncated, r.position());
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

Result<Message> decode_body(Reader& r, Message m) {
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
    if (Error e = read_record(r, Section::answer, m)) return e;
    if (tsig_last(m.answers)) return make_error(Errc::tsig_not_last, at);
  }
  for (unsigned i = 0; i < h.nscount; ++i) {
    std::size_t at = r.position();
    if (Error e = read_record(r, Section::authority, m)) return e;
    if (tsig_last(m.authority)) return make_error(Errc::tsig_not_last, at);
  }
  for (unsigned i = 0; i < h.arcount; ++i) {
    if (tsig_last(m.additional)) return make_error(Errc::tsig_not_last, r.position());
    if (Error e = read_record(r, Section::additional, m)) return e;
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
  return decode_body(r, std::move(m));
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
  // Authority records are refused too, except the SOA an IXFR query
  // carries (RFC 1995 §3); the question has to be read to know.
  const bool authority = op == Opcode::query && h.nscount != 0;
  auto out = decode_body(r, std::move(m));
  if (authority && out && out->questions.front().qtype != type::IXFR)
    return make_error(Errc::records_in_query, 8);
  return out;
}

}  // namespace herald::dns
