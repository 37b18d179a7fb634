#include "dns/encoder.hpp"

#include <memory>

#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

void write_name(Writer& w, const Name& n, detail::CompressionMap* map) {
  if (map != nullptr) {
    map->write_name(w, n);
  } else {
    w.bytes(n.wire());
  }
}

void write_record(Writer& w, const Record& rr, detail::CompressionMap* map) {
  write_name(w, rr.owner, map);
  w.u16(rr.type.value);
  w.u16(rr.rclass.value);
  w.u32(rr.ttl);
  std::size_t len_at = w.size();
  w.u16(0);
  rdata_to_wire(rr.type, rr.rdata, w, map);
  if (w.overflow()) return;
  // Compression only shortens RDATA, and rdata.size() <= 65535 was checked.
  w.patch_u16(len_at, static_cast<std::uint16_t>(w.size() - len_at - 2));
}

}  // namespace

Result<std::size_t> Encoder::encode(const Message& m, std::vector<std::uint8_t>& out,
                                    const EncodeOptions& opt) {
  out.clear();
  map_.clear();
  detail::CompressionMap* map = opt.compress ? &map_ : nullptr;
  std::size_t max = opt.max_size > 65535 ? 65535 : opt.max_size;
  std::size_t opt_size = m.edns ? m.edns->wire_size() : 0;
  if (opt_size + kHeaderSize > max) return make_error(Errc::message_too_long, 0);
  Writer w(out, max - opt_size);
  Header h = m.header;
  h.write(w);  // placeholder counts, patched below
  for (const Question& q : m.questions) {
    write_name(w, q.qname, map);
    w.u16(q.qtype.value);
    w.u16(q.qclass.value);
  }
  if (w.overflow()) return make_error(Errc::message_too_long, w.size());

  const std::vector<Record>* sections[3] = {&m.answers, &m.authority, &m.additional};
  std::uint16_t counts[3] = {0, 0, 0};
  std::size_t total = m.answers.size() + m.authority.size() + m.additional.size();
  std::size_t written = 0;
  bool full = false;
  // A trailing TSIG goes after OPT: it must be the last record (RFC 8945).
  const Record* tsig = !m.additional.empty() && m.additional.back().type == type::TSIG
                           ? &m.additional.back()
                           : nullptr;
  for (int s = 0; s < 3 && !full; ++s) {
    for (const Record& rr : *sections[s]) {
      if (&rr == tsig) break;
      if (rr.rdata.size() > 65535) return make_error(Errc::rdata_too_long, w.size());
      std::size_t mark = w.size();
      auto map_mark = map_.mark();
      write_record(w, rr, map);
      if (w.overflow()) {
        // Roll back the partial record and every compression entry it made,
        // so no later pointer can lead into the removed octets.
        w.truncate(mark);
        map_.rollback(map_mark);
        full = true;
        break;
      }
      ++counts[s];
      ++written;
    }
  }
  w.set_limit(max);
  if (m.edns) m.edns->write(w);
  if (tsig != nullptr && !full) {
    // Written after OPT within the full limit: OPT's reserved room is used.
    std::size_t mark = w.size();
    auto map_mark = map_.mark();
    write_record(w, *tsig, map);
    if (w.overflow()) {
      w.truncate(mark);
      map_.rollback(map_mark);
    } else {
      ++counts[2];
      ++written;
    }
  }
  std::size_t dropped = total - written;
  if (dropped > 0) h.tc = true;
  w.patch_u16(2, h.flags());
  w.patch_u16(4, static_cast<std::uint16_t>(m.questions.size()));
  w.patch_u16(6, counts[0]);
  w.patch_u16(8, counts[1]);
  w.patch_u16(10, static_cast<std::uint16_t>(counts[2] + (m.edns ? 1 : 0)));
  return dropped;
}

Result<std::vector<std::uint8_t>> encode(const Message& m, const EncodeOptions& opt) {
  // The map is 10 KiB: on the heap here, so callers' stacks stay small.
  auto enc = std::make_unique<Encoder>();
  std::vector<std::uint8_t> out;
  auto r = enc->encode(m, out, opt);
  if (!r) return r.error();
  return out;
}

}  // namespace herald::dns
