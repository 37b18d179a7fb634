// Typed 16-bit identifiers of the protocol: record types, classes, opcodes,
// response codes, EDNS option codes. Distinct types so a class is never
// passed where a type is expected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace herald::dns {

struct RRType {
  std::uint16_t value = 0;
  friend constexpr bool operator==(RRType, RRType) = default;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>
  friend constexpr auto operator<=>(RRType, RRType) = default;
};

struct RRClass {
  std::uint16_t value = 1;
  friend constexpr bool operator==(RRClass, RRClass) = default;
};

namespace type {
inline constexpr RRType A{1}, NS{2}, CNAME{5}, SOA{6}, MB{7}, MG{8}, MR{9}, NULL_{10}, WKS{11},
    PTR{12}, HINFO{13}, MINFO{14}, MX{15}, TXT{16}, RP{17}, AFSDB{18}, X25{19}, ISDN{20}, RT{21},
    NSAP{22}, SIG{24}, KEY{25}, PX{26}, AAAA{28}, LOC{29}, NXT{30}, SRV{33}, NAPTR{35}, KX{36},
    CERT{37}, DNAME{39}, OPT{41}, APL{42}, DS{43}, SSHFP{44}, IPSECKEY{45}, RRSIG{46}, NSEC{47},
    DNSKEY{48}, DHCID{49}, NSEC3{50}, NSEC3PARAM{51}, TLSA{52}, SMIMEA{53}, HIP{55}, CDS{59},
    CDNSKEY{60}, OPENPGPKEY{61}, CSYNC{62}, ZONEMD{63}, SVCB{64}, HTTPS{65}, SPF{99}, NID{104},
    L32{105}, L64{106}, LP{107}, EUI48{108}, EUI64{109}, TKEY{249}, TSIG{250}, IXFR{251}, AXFR{252},
    ANY{255}, URI{256}, CAA{257};
// RFC 9824 §3.5: a meta type that only appears in the type bitmap of a
// compact denial's NSEC, saying the name does not exist. It has no RDATA
// layout (so no descriptor: its text form stays "TYPE128"), and a query for
// it is answered FORMERR.
inline constexpr RRType NXNAME{128};
}  // namespace type

namespace rrclass {
inline constexpr RRClass IN{1}, CH{3}, HS{4}, NONE{254}, ANY{255};
}

// "A", "NSEC3PARAM", or "TYPE65280" for types without a mnemonic.
std::string type_to_text(RRType t);
// Accepts mnemonics (case-insensitive) and TYPE###.
std::optional<RRType> type_from_text(std::string_view s);
std::string class_to_text(RRClass c);
std::optional<RRClass> class_from_text(std::string_view s);

enum class Opcode : std::uint8_t { query = 0, iquery = 1, status = 2, notify = 4, update = 5 };

// Response codes; values above 15 need EDNS (extended RCODE).
enum class Rcode : std::uint16_t {
  noerror = 0,
  formerr = 1,
  servfail = 2,
  nxdomain = 3,
  notimp = 4,
  refused = 5,
  yxdomain = 6,
  yxrrset = 7,
  nxrrset = 8,
  notauth = 9,
  notzone = 10,
  badvers = 16,
  badcookie = 23,  // RFC 7873 §8
};

// EDNS option codes (RFC 6891 §6.1.2 registry).
struct OptionCode {
  std::uint16_t value = 0;
  friend constexpr bool operator==(OptionCode, OptionCode) = default;
};
namespace option {
inline constexpr OptionCode NSID{3}, CLIENT_SUBNET{8}, COOKIE{10}, PADDING{12}, EDE{15};
}

}  // namespace herald::dns
