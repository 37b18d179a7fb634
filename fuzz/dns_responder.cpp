// Fuzz target: the authoritative responder. Any byte string is a query to
// the test zones (tests/dns/data/server: plain, NSEC- and NSEC3-signed,
// delegations, wildcards, CNAME/DNAME chains and loops) over UDP and TCP.
// The responder may not crash, read out of bounds (ASan), hang or leak, and
// what it sends must be a well-formed response: it decodes, echoes the
// query's ID with QR set, and fits the size the transport allows.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "dns/decoder.hpp"
#include "dns/responder.hpp"

namespace {

using namespace herald::dns;

const ZoneDb& db() {
  static const std::shared_ptr<const ZoneDb> d = [] {
    std::vector<ZoneSource> sources;
    for (const char* z :
         {"example.com", "example.net", "child.example.com", "signed.example", "nsec3.example"}) {
      sources.push_back({Name::from_text(std::string(z) + ".").value(),
                         std::string(HERALD_DNS_TEST_DATA "/server/") + z + ".zone"});
    }
    DbLoad load = load_zones(sources);
    if (load.failed != 0) std::abort();  // the fixture itself is broken
    return load.db;
  }();
  return *d;
}

void check(std::span<const std::uint8_t> query, const std::vector<std::uint8_t>& out,
           const Outcome& o, std::size_t limit) {
  if (o.drop) {
    if (!out.empty()) std::abort();
    return;
  }
  if (out.size() > limit) std::abort();
  auto m = decode(out);
  if (!m) std::abort();
  if (!m->header.qr) std::abort();
  if (m->header.id != static_cast<std::uint16_t>(query[0] << 8 | query[1])) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Responder responder;  // reused, as a shard reuses it
  std::span<const std::uint8_t> query(data, size);
  std::vector<std::uint8_t> out;
  Outcome udp = responder.respond(db(), query, Transport::udp, out);
  check(query, out, udp, responder.options().max_udp_payload);
  Outcome tcp = responder.respond(db(), query, Transport::tcp, out);
  check(query, out, tcp, 65535);
  return 0;
}
