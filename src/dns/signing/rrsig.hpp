// The fields of an RRSIG record before its signature (RFC 4034 §3.1):
//
//   type covered (16) | algorithm (8) | labels (8) | original TTL (32)
//   | expiration (32) | inception (32) | key tag (16) | signer's name
//
// These octets are written twice per signature, and must be the same both
// times: first at the head of the data the signature is computed over
// (§3.1.8.1, with the signer's name in canonical form), then at the head of
// the RRSIG RDATA a resolver receives, followed by the signature. One
// writer serves both, so the two cannot drift apart.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dns/name.hpp"
#include "dns/types.hpp"

namespace herald::dns::signing {

struct RrsigFields {
  RRType covered;
  std::uint8_t algorithm = 0;
  std::uint8_t labels = 0;  // rrsig_labels(owner)
  std::uint32_t original_ttl = 0;
  std::uint32_t expiration = 0;  // seconds since 1970, modulo 2^32 (RFC 4034 §3.1.5)
  std::uint32_t inception = 0;
  std::uint16_t key_tag = 0;
  Name signer;  // the zone's apex (RFC 4035 §5.3.1)
};

// The labels field for an RRset owned by `owner` (§3.1.3): its label count,
// less one if its first label is "*" (a wildcard owner, which a validator
// then knows to reconstruct). An answer synthesized from a wildcard is
// owned by the query name and is signed as that name.
std::uint8_t rrsig_labels(const Name& owner) noexcept;

// Appends the fields above in wire order, the signer's name lower-cased
// (RFC 4034 §6.2 lists RRSIG among the types whose names are canonically
// lower case; RFC 6840 §5.1 confirms it for the signer's name).
void append_rrsig_fields(const RrsigFields& f, std::vector<std::uint8_t>& out);

// An RRSIG's whole RDATA: the fields, then the signature.
void append_rrsig_rdata(const RrsigFields& f, std::span<const std::uint8_t> signature,
                        std::vector<std::uint8_t>& out);

}  // namespace herald::dns::signing
