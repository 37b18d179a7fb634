#include "dns/notify.hpp"

#include "dns/encoder.hpp"

namespace herald::dns {

std::vector<std::uint8_t> notify_message(const Zone& zone, std::uint16_t id) {
  Message m;
  m.header.id = id;
  m.header.opcode = static_cast<std::uint8_t>(Opcode::notify);
  m.header.aa = true;
  m.questions.push_back({zone.origin(), type::SOA, rrclass::IN});
  const RRset& soa = zone.soa();
  m.answers.push_back(Record{zone.origin(), type::SOA, rrclass::IN, soa.ttl, soa.rdatas.front()});
  // An SOA and a name always fit 65535 octets: encoding cannot fail.
  return encode(m).value();
}

std::uint32_t soa_serial(const Zone& zone) {
  // SOA RDATA: MNAME, RNAME (uncompressed), then SERIAL and four more u32.
  const Rdata& rd = zone.soa().rdatas.front();
  const std::uint8_t* p = rd.data() + rd.size() - 20;
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

}  // namespace herald::dns
