// Compact denial of existence (RFC 9824, "black lies"): the NSEC record an
// online signer makes per query instead of proving a gap between two names
// of a pre-built chain. Every denial is one NSEC owned by the name asked
// about, whose "next" field is the first name after it, so the proven gap
// holds no name at all, and nothing of the zone is revealed to a walker:
//
//   case (RFC 9824)               owner  next                      bitmap
//   nxname  (§3.1, no such name)  QNAME  \000.QNAME                RRSIG NSEC NXNAME
//   nodata  (§3.2, name exists)   QNAME  \000.QNAME                node's types RRSIG NSEC
//   delegation (§3.4, at a cut)   cut    sub\000.zone.             NS DS (if present) RRSIG NSEC
//
// "Next" must be the *immediate* successor in RFC 4034 §6.1 canonical order,
// or as close as names allow: a validator may cache an NSEC and deny from it
// every name in its gap (RFC 8198), so a gap that reaches past an existing
// name denies that name. Canonical order sorts by the rightmost label first,
// each label as case-folded octets, a name before its descendants. Hence:
//
//   - after a name: its first possible child, "\000.name" (RFC 4034 §6.1's
//     own example), when two more octets fit in 255;
//   - after a name and all its descendants (a cut, whose children live in
//     another zone, and a name of 254-255 octets, which has no children):
//     its first label with one 0x00 octet appended, the next label in
//     octet order, when the label is under 63 octets and the name under
//     255; else the label "incremented": its trailing 0xFF octets dropped
//     and its last other octet raised by one, which leaves no valid label
//     in between (any label between would be longer than the limit that
//     stopped the append). Folding makes 0x41-0x5A equal to 0x61-0x7A, so
//     the value after 0x40 is 0x5B. A label of only 0xFF octets has no
//     next sibling: the walk moves to the parent (being shorter, it has
//     room for the append unless its own label is 63 octets); at the
//     apex the chain ends, and "next" is the apex (RFC 4034 §4.1.1: the
//     last NSEC points to it).
//
// Knot's onlinesign (online_nsec_next) walks the same way since its fix
// 3699716a7 (2026); before it, Knot incremented a label before trying the
// append and kept an incremented label's length (trailing 0xFF became
// 0x00), both of which leave valid names inside the gap. Here every result
// is checked against enumerated name spaces (compact_denial_test.cpp).
//
// The type bitmap is RFC 4034 §4.1.2's: windows of 256 types, each
// "window | length | bits", bit 0 (the most significant) of octet 0 being
// type window * 256 + 0, and each window only as long as its last nonzero
// octet. NXNAME (128) is RFC 9824 §3.5's pseudo-type marking the name
// nonexistent. At a cut only NS and DS are the zone's own data (RFC 4034
// §4.1.2: bits of RRsets the parent is not authoritative for, glue
// included, must be clear there), and a DS query at a cut without DS gets
// the cut's form too: "\000.sub" would lie inside the child's zone.
//
// Preconditions of every function: names are lower case (canonical form,
// RFC 4034 §6.2; the caller folds QNAME once) and at or below `apex`; the
// results are lower case too. Nothing here allocates except to grow `out`:
// Name is an inline value, and compact_nsec reuses `out`'s capacity, so the
// per-query path costs no allocation once `out` has grown to the largest
// RDATA asked for (the next name's 255 octets, then 2 + 32 per window).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dns/name.hpp"
#include "dns/zone.hpp"

namespace herald::dns::signing {

enum class Denial : std::uint8_t { nxname, nodata, delegation };

// The immediate successor of `owner` in canonical order, for the NSEC
// "next" field: "\000.owner" when it fits, else the first name after
// `owner`'s (necessarily empty) subtree; `apex` if there is none.
Name successor(const Name& owner, const Name& apex) noexcept;

// The first name after every name at or below the cut `cut` (RFC 9824
// §3.4: "sub\000.zone."), or `apex` if there is none.
Name delegation_successor(const Name& cut, const Name& apex) noexcept;

// Appends the RFC 4034 §4.1.2 type bitmap of `sorted_types` (strictly
// ascending: unique) to `out`. An empty list appends nothing.
void append_type_bitmap(std::span<const std::uint16_t> sorted_types,
                        std::vector<std::uint8_t>& out);

// Assigns to `out` the whole NSEC RDATA (next name, uncompressed | bitmap)
// of the compact answer of kind `d` owned by `owner`, keeping `out`'s
// capacity. `node` is `owner`'s node for nodata (the wildcard's node for a
// wildcard NODATA; an empty non-terminal has no RRsets: RRSIG NSEC only)
// and the cut's for delegation; it is not read for nxname and may be null
// there (a null node elsewhere counts as one without RRsets).
void compact_nsec(const Node* node, const Name& owner, const Name& apex, Denial d,
                  std::vector<std::uint8_t>& out);

}  // namespace herald::dns::signing
