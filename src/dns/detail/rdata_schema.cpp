#include "dns/detail/rdata_schema.hpp"

#include <algorithm>

#include "dns/detail/ascii.hpp"

namespace herald::dns::detail {
namespace {

using F = Field;

// Sorted by type value (find_descriptor bisects). Count 0: a mnemonic only.
constexpr Descriptor kTable[] = {
    {1, "A", 1, {F::a}},
    {2, "NS", 1, {F::name_c}},
    {5, "CNAME", 1, {F::name_c}},
    {6, "SOA", 7, {F::name_c, F::name_c, F::u32, F::u32, F::u32, F::u32, F::u32}},
    {7, "MB", 1, {F::name_c}},
    {8, "MG", 1, {F::name_c}},
    {9, "MR", 1, {F::name_c}},
    {10, "NULL", 0, {}},
    {12, "PTR", 1, {F::name_c}},
    {13, "HINFO", 2, {F::cstr, F::cstr}},
    {14, "MINFO", 2, {F::name_c, F::name_c}},
    {15, "MX", 2, {F::u16, F::name_c}},
    {16, "TXT", 1, {F::cstr_rest}},
    {17, "RP", 2, {F::name_d, F::name_d}},
    {18, "AFSDB", 2, {F::u16, F::name_d}},
    {21, "RT", 2, {F::u16, F::name_d}},
    {28, "AAAA", 1, {F::aaaa}},
    {29, "LOC", 1, {F::loc}},
    {33, "SRV", 4, {F::u16, F::u16, F::u16, F::name_d}},
    {35, "NAPTR", 6, {F::u16, F::u16, F::cstr, F::cstr, F::cstr, F::name_d}},
    {36, "KX", 2, {F::u16, F::name_d}},
    {37, "CERT", 4, {F::cert_type, F::u16, F::u8, F::b64_rest}},
    {39, "DNAME", 1, {F::name_d}},
    {41, "OPT", 0, {}},
    {43, "DS", 4, {F::u16, F::u8, F::u8, F::hex_rest}},
    {44, "SSHFP", 3, {F::u8, F::u8, F::hex_rest}},
    {45, "IPSECKEY", 5, {F::u8, F::u8, F::u8, F::ipseckey_gw, F::b64_rest}},
    {46,
     "RRSIG",
     9,
     {F::type, F::u8, F::u8, F::u32, F::time, F::time, F::u16, F::name, F::b64_rest}},
    {47, "NSEC", 2, {F::name, F::bitmap}},
    {48, "DNSKEY", 4, {F::u16, F::u8, F::u8, F::b64_rest}},
    {49, "DHCID", 1, {F::b64_rest}},
    {50, "NSEC3", 6, {F::u8, F::u8, F::u16, F::hex_u8, F::b32_u8, F::bitmap}},
    {51, "NSEC3PARAM", 4, {F::u8, F::u8, F::u16, F::hex_u8}},
    {52, "TLSA", 4, {F::u8, F::u8, F::u8, F::hex_rest}},
    {53, "SMIMEA", 4, {F::u8, F::u8, F::u8, F::hex_rest}},
    {59, "CDS", 4, {F::u16, F::u8, F::u8, F::hex_rest}},
    {60, "CDNSKEY", 4, {F::u16, F::u8, F::u8, F::b64_rest}},
    {61, "OPENPGPKEY", 1, {F::b64_rest}},
    {62, "CSYNC", 3, {F::u32, F::u16, F::bitmap}},
    {63, "ZONEMD", 4, {F::u32, F::u8, F::u8, F::hex_rest}},
    {64, "SVCB", 3, {F::u16, F::name, F::svc_params}},
    {65, "HTTPS", 3, {F::u16, F::name, F::svc_params}},
    {99, "SPF", 1, {F::cstr_rest}},
    {108, "EUI48", 1, {F::eui48}},
    {109, "EUI64", 1, {F::eui64}},
    {249, "TKEY", 0, {}},
    {250, "TSIG", 7, {F::name, F::u48, F::u16, F::b64_u16, F::u16, F::u16, F::b64_u16}},
    {251, "IXFR", 0, {}},
    {252, "AXFR", 0, {}},
    {255, "ANY", 0, {}},
    {256, "URI", 3, {F::u16, F::u16, F::text_rest}},
    {257, "CAA", 3, {F::u8, F::tag, F::text_rest}},
};

constexpr bool sorted() {
  for (std::size_t i = 1; i < std::size(kTable); ++i) {
    if (kTable[i - 1].type >= kTable[i].type) return false;
  }
  return true;
}
static_assert(sorted(), "kTable must be sorted by type for the binary search");

}  // namespace

const Descriptor* find_descriptor(RRType t) noexcept {
  auto it = std::lower_bound(std::begin(kTable), std::end(kTable), t.value,
                             [](const Descriptor& d, std::uint16_t v) { return d.type < v; });
  return it != std::end(kTable) && it->type == t.value ? &*it : nullptr;
}

const Descriptor* find_descriptor(std::string_view mnemonic) noexcept {
  for (const Descriptor& d : kTable) {
    // Safety: chars viewed as uint8_t, same size and alignment, read only
    if (d.mnemonic.size() == mnemonic.size() &&
        iequal_plain(reinterpret_cast<const std::uint8_t*>(d.mnemonic.data()),
                     reinterpret_cast<const std::uint8_t*>(mnemonic.data()), mnemonic.size())) {
      return &d;
    }
  }
  return nullptr;
}

}  // namespace herald::dns::detail
