#include "dns/presentation.hpp"

#include "dns/detail/text_codecs.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {

void append_record_text(const Record& rr, std::string& out) {
  rr.owner.append_text(out);
  out += '\t';
  out += std::to_string(rr.ttl);
  out += '\t';
  out += class_to_text(rr.rclass);
  out += '\t';
  out += type_to_text(rr.type);
  out += '\t';
  rdata_to_text(rr.type, rr.rdata, out);
}

std::string record_to_text(const Record& rr) {
  std::string s;
  append_record_text(rr, s);
  return s;
}

std::string question_to_text(const Question& q) {
  std::string s;
  q.qname.append_text(s);
  s += '\t';
  s += class_to_text(q.qclass);
  s += '\t';
  s += type_to_text(q.qtype);
  return s;
}

void append_header_flags(const Header& h, std::string& out) {
  const std::pair<bool, const char*> flags[] = {{h.qr, " qr"}, {h.aa, " aa"}, {h.tc, " tc"},
                                                {h.rd, " rd"}, {h.ra, " ra"}, {h.z, " z"},
                                                {h.ad, " ad"}, {h.cd, " cd"}};
  for (const auto& [on, name] : flags) {
    if (on) out += name;
  }
}

std::string message_to_text(const Message& m) {
  const Header& h = m.header;
  std::string s = ";; id " + std::to_string(h.id) + " opcode " + std::to_string(h.opcode) +
                  " rcode " + std::to_string(m.rcode()) + " flags";
  append_header_flags(h, s);
  s += '\n';
  if (m.edns) {
    s += ";; edns version " + std::to_string(m.edns->version) + " udp " +
         std::to_string(m.edns->udp_size) + (m.edns->dnssec_ok ? " do" : "");
    for (const auto& o : m.edns->options) {
      s += " opt" + std::to_string(o.code.value) + "=";
      detail::hex_encode(o.data, s);
    }
    s += '\n';
  }
  s += ";; question\n";
  for (const auto& q : m.questions) s += question_to_text(q) + '\n';
  const std::pair<const char*, const std::vector<Record>*> sections[] = {
      {";; answer\n", &m.answers},
      {";; authority\n", &m.authority},
      {";; additional\n", &m.additional}};
  for (const auto& [title, rrs] : sections) {
    s += title;
    for (const auto& rr : *rrs) {
      append_record_text(rr, s);
      s += '\n';
    }
  }
  return s;
}

}  // namespace herald::dns
