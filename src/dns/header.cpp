#include "dns/header.hpp"

#include <cassert>

namespace herald::dns {

std::uint16_t Header::flags() const noexcept {
  return static_cast<std::uint16_t>((qr ? 0x8000 : 0) | (opcode & 0xF) << 11 | (aa ? 0x0400 : 0) |
                                    (tc ? 0x0200 : 0) | (rd ? 0x0100 : 0) | (ra ? 0x0080 : 0) |
                                    (z ? 0x0040 : 0) | (ad ? 0x0020 : 0) | (cd ? 0x0010 : 0) |
                                    (rcode & 0xF));
}

void Header::set_flags(std::uint16_t f) noexcept {
  qr = f & 0x8000;
  opcode = static_cast<std::uint8_t>(f >> 11 & 0xF);
  aa = f & 0x0400;
  tc = f & 0x0200;
  rd = f & 0x0100;
  ra = f & 0x0080;
  z = f & 0x0040;
  ad = f & 0x0020;
  cd = f & 0x0010;
  rcode = static_cast<std::uint8_t>(f & 0xF);
}

Header Header::read(Reader& r) noexcept {
  assert(r.has(kHeaderSize));
  Header h;
  h.id = r.u16();
  h.set_flags(r.u16());
  h.qdcount = r.u16();
  h.ancount = r.u16();
  h.nscount = r.u16();
  h.arcount = r.u16();
  return h;
}

void Header::write(Writer& w) const {
  w.u16(id);
  w.u16(flags());
  w.u16(qdcount);
  w.u16(ancount);
  w.u16(nscount);
  w.u16(arcount);
}

}  // namespace herald::dns
