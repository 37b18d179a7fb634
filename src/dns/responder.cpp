#include "dns/responder.hpp"

#include <algorithm>
#include <array>

#include "dns/decoder.hpp"
#include "dns/detail/label_offsets.hpp"
#include "dns/nsec3_hash.hpp"
#include "dns/rdata.hpp"
#include "dns/transfer.hpp"

namespace herald::dns {

namespace {

// The CO flag: the second bit of the EDNS flags, after DO (RFC 9824 §5.1);
// Edns::z holds the 15 bits after DO, so it is z's top bit.
constexpr std::uint16_t kCompactOk = 0x4000;

bool wants_targets(RRType t) {
  return t == type::NS || t == type::MX || t == type::SRV;
}

// Synthesised names per query: one per CNAME/DNAME step and a few for
// proofs; fixed capacity so pointers into the vector stay valid.
std::size_t name_capacity(std::size_t max_chain) {
  return 2 * max_chain + 8;
}

}  // namespace

Responder::Responder(ResponderOptions opt) : opt_(std::move(opt)), signer_(opt_.signatures) {
  names_.reserve(name_capacity(opt_.max_chain));
  synth_.reserve(opt_.max_chain + 1);
  // One denial per chain step at most, and a referral's.
  nsec_pool_.resize(opt_.max_chain + 4, RRset{type::NSEC, 0, {Rdata{}}, {}, 0, {}});
  for (auto& s : sections_) s.reserve(32);
}

void Responder::reset() {
  for (auto& s : sections_) s.clear();
  names_.clear();
  synth_.clear();
  nsec_used_ = 0;
  signer_.clear();
  aa_ = false;
  rcode_ = 0;
  ede_ = 0xFFFF;
}

const Name* Responder::keep(const Name& n) {
  // Never grow: entries point into names_, so a reallocation would leave
  // them dangling. A chain too long for the room ends like max_chain.
  if (names_.size() == names_.capacity()) return nullptr;
  names_.push_back(n);
  return &names_.back();
}

bool Responder::contains(const RRset* set, const Name& owner) const noexcept {
  for (const auto& sec : sections_) {
    for (const Entry& e : sec) {
      // The owner matters for a wildcard's RRset, which answers for many.
      if (e.set == set && e.owner->iequals(owner)) return true;
    }
  }
  return false;
}

bool Responder::add(Section s, const Name* owner, const RRset* set, const Zone* signer,
                    bool sigs_only, bool required) {
  if (set == nullptr || owner == nullptr) return false;
  // A set goes out once (a CNAME loop meets its first CNAME again; an NS
  // target's address may already be the answer).
  for (const Entry& e : sections_[s]) {
    if (e.set == set && e.owner->iequals(*owner)) return false;
  }
  if (s == kAdditional && contains(set, *owner)) return false;
  sections_[s].push_back(Entry{owner, set, sigs_only, required, signer, false, {}});
  return true;
}

void Responder::add_targets(const Zone& zone, const RRset& set, bool glue) {
  for (std::size_t i = 0; i < set.targets.size(); ++i) {
    std::uint32_t n = set.targets[i];  // resolved at load (zone.hpp)
    if (n == kNoNode) continue;
    if ((n & kWildcardTarget) != 0) {
      // Synthesised from the wildcard (RFC 4592): owned by the target name
      // itself, kept for this query like other synthesised names.
      const Node& wild = zone.node(n & ~kWildcardTarget);
      std::size_t at = set.type == type::MX ? 2 : set.type == type::SRV ? 6 : 0;
      auto target =
          Name::from_uncompressed(std::span<const std::uint8_t>(set.rdatas[i]).subspan(at));
      const Name* owner = target ? keep(target.value()) : nullptr;
      add(kAdditional, owner, wild.find(type::A), sign_by(zone));
      add(kAdditional, owner, wild.find(type::AAAA), sign_by(zone));
      continue;
    }
    const Node& nd = zone.node(n);
    // Below a cut only NS may point (glue); other targets there are not ours.
    if (nd.occluded && !glue) continue;
    // Glue is the child's data: never signed (RFC 4035 §2.2).
    const Zone* signer = nd.occluded ? nullptr : sign_by(zone);
    add(kAdditional, &nd.name, nd.find(type::A), signer);
    add(kAdditional, &nd.name, nd.find(type::AAAA), signer);
  }
}

void Responder::add_glue(const Zone& zone, const RRset& ns, const Name& cut) {
  // In-domain glue first, so that what must fit is written before what may
  // be dropped (encode stops at the first additional RRset that overflows):
  // RFC 9471 §3.1 (in-domain: required, TC when it does not fit), §3.2
  // (sibling: may be left out), and names of ours outside any cut last.
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint32_t n : ns.targets) {
      // Wildcard-covered targets are never below the cut (zone.cpp), so
      // never glue; add_targets handles them for authoritative NS sets.
      if (n == kNoNode || (n & kWildcardTarget) != 0) continue;
      const Node& nd = zone.node(n);
      bool in_domain = nd.name.is_subdomain_of(cut);
      if (in_domain != (pass == 0)) continue;
      // Our own names outside any cut are ours to sign; glue is not.
      const Zone* signer = nd.occluded ? nullptr : sign_by(zone);
      add(kAdditional, &nd.name, nd.find(type::A), signer, false, in_domain);
      add(kAdditional, &nd.name, nd.find(type::AAAA), signer, false, in_domain);
    }
  }
}

void Responder::add_nsec(const Zone& zone, const Name& name) {
  std::uint32_t n = zone.nsec_for(name);
  if (n == kNoNode) return;
  add(kAuthority, &zone.node(n).name, zone.node(n).find(type::NSEC), nullptr);
}

void Responder::add_nsec3_match(const Zone& zone, const Name& name) {
  const Nsec3Params& p = zone.nsec3_params();
  auto h = nsec3_hash(name, p.algorithm, p.iterations, p.salt);
  if (!h) return;
  if (const Nsec3Node* n = zone.nsec3_match(*h)) add(kAuthority, &n->name, &n->nsec3, nullptr);
}

void Responder::add_nsec3_cover(const Zone& zone, const Name& name) {
  const Nsec3Params& p = zone.nsec3_params();
  auto h = nsec3_hash(name, p.algorithm, p.iterations, p.salt);
  if (!h) return;
  if (const Nsec3Node* n = zone.nsec3_cover(*h)) add(kAuthority, &n->name, &n->nsec3, nullptr);
}

void Responder::add_compact_nsec(Section s, const Zone& zone, const Name& owner, const Node* node,
                                 signing::Denial d) {
  // Never grow: entries point into the pool. An answer needing more
  // denials than the room (a chain longer than max_chain) ends unproved.
  if (nsec_used_ == nsec_pool_.size()) return;
  RRset& set = nsec_pool_[nsec_used_];
  // RFC 9077: the NSEC TTL is the negative-caching TTL, like the SOA's.
  set.ttl = zone.negative_ttl();
  signing::compact_nsec(node, owner.lowercased(), zone.keys()->signer(), d, set.rdatas.front());
  if (!add(s, &owner, &set, &zone)) return;
  ++nsec_used_;
  sections_[s].back().one_off = d == signing::Denial::nxname;
}

bool Responder::sign_entries() {
  for (auto& sec : sections_) {
    for (Entry& e : sec) {
      if (e.signer == nullptr) continue;
      if (!signer_.sign(*e.signer, *e.owner, *e.set, now_, e.one_off, e.sigs)) return false;
    }
  }
  return true;
}

void Responder::lookup(const ZoneDb& db, const Name& qname, std::size_t depth) {
  const Zone* zone = db.find(qname);
  if (zone == nullptr) {
    if (depth == 0) {
      rcode_ = static_cast<std::uint16_t>(Rcode::refused);
      ede_ = ede::kNotAuthoritative;
    }
    return;  // a chain leaving our zones ends here; the resolver goes on
  }
  // RFC 4035 §3.1.4.1: DS at a cut is answered from the parent side.
  if (qtype_ == type::DS && qname.label_count() == zone->origin().label_count()) {
    if (const Zone* parent = db.find_parent(*zone)) zone = parent;
  }
  answer_in_zone(db, *zone, qname, depth);
}

void Responder::answer_in_zone(const ZoneDb& db, const Zone& zone, const Name& qname,
                               std::size_t depth) {
  std::array<std::uint8_t, 128> at;
  std::size_t ql = detail::label_offsets(qname, at);
  std::size_t k = zone.origin().label_count();
  auto wire = qname.wire();
  std::uint32_t cur = 0;  // the apex; invariant: node `cur` is QNAME's ancestor with k labels
  while (k < ql) {
    std::uint32_t n = zone.find(wire.subspan(at[ql - k - 1]));
    if (n == kNoNode) break;
    cur = n;
    ++k;
    const Node& nd = zone.node(cur);
    if (nd.cut && !(k == ql && qtype_ == type::DS)) return referral(zone, cur, depth);
    if (k < ql && nd.find(type::DNAME) != nullptr)
      return dname(db, zone, cur, qname, ql - k, depth);
  }
  aa_ = true;
  if (k == ql) return answer_node(db, zone, cur, qname, kNoNode, qname, depth);
  const Node& encloser = zone.node(cur);
  if (encloser.wildcard == kNoNode) return nxdomain(zone, cur, qname);
  // RFC 4592 §3.3.1: the wildcard answers as if it were QNAME. With DNSSEC,
  // prove that QNAME itself does not exist (RFC 4035 §3.1.3.3, RFC 5155
  // §7.2.6: the NSEC3 covering the next closer name).
  if (dnssec(zone)) {
    if (zone.has_nsec3()) {
      add_nsec3_cover(zone, qname.parent(ql - encloser.name.label_count() - 1));
    } else {
      add_nsec(zone, qname);
    }
  }
  std::array<std::size_t, 3> before{};
  for (std::size_t s = 0; s < 3; ++s) before[s] = sections_[s].size();
  answer_node(db, zone, encloser.wildcard, qname, cur, qname, depth);
  // What the wildcard answered under QNAME (its RRsets, or its NODATA
  // NSEC) is owned by a name only this query may ever ask.
  for (std::size_t s = 0; s < 3; ++s) {
    for (std::size_t i = before[s]; i < sections_[s].size(); ++i) {
      if (sections_[s][i].owner == &qname) sections_[s][i].one_off = true;
    }
  }
}

void Responder::answer_node(const ZoneDb& db, const Zone& zone, std::uint32_t node,
                            const Name& owner, std::uint32_t wildcard_encloser, const Name& qname,
                            std::size_t depth) {
  const Node& nd = zone.node(node);
  const Node& apex = zone.apex();
  if (qtype_ == type::ANY) {
    // RFC 8482 §4.2: one RRset is enough. The SOA at the apex (what NSD
    // sends), else the first of the node's RRsets.
    const RRset* pick = node == 0 ? apex.find(type::SOA) : nullptr;
    for (const RRset& s : nd.rrsets) {
      if (pick != nullptr) break;
      if (s.type != type::NSEC && s.type != type::NSEC3) pick = &s;
    }
    if (pick == nullptr) return nodata(zone, node, wildcard_encloser, qname);
    add(kAnswer, &owner, pick, sign_by(zone));
    if (wants_targets(pick->type)) add_targets(zone, *pick, pick->type == type::NS);
    return;
  }
  if (qtype_ == type::RRSIG && zone.keys() != nullptr) {
    // A zone signed online stores no signatures to hand out: they are made
    // per RRset as answers need them (Knot refuses these queries too).
    rcode_ = static_cast<std::uint16_t>(Rcode::refused);
    ede_ = ede::kNotSupported;
    return;
  }
  if (qtype_ == type::NSEC && sign_by(zone) != nullptr) {
    // The name's own NSEC, as a denial of any other type would carry it.
    return add_compact_nsec(kAnswer, zone, owner, &nd, signing::Denial::nodata);
  }
  if (qtype_ == type::RRSIG) {
    // The signatures themselves (RFC 4035 §3.1.5 leaves it to us): every
    // RRSIG at the name, without the records they cover.
    bool any = false;
    for (const RRset& s : nd.rrsets) {
      if (!s.sigs.empty()) any = add(kAnswer, &owner, &s, nullptr, true) || any;
    }
    if (!any) nodata(zone, node, wildcard_encloser, qname);
    return;
  }
  if (const RRset* set = nd.find(qtype_)) {
    add(kAnswer, &owner, set, sign_by(zone));
    if (wants_targets(set->type)) add_targets(zone, *set, set->type == type::NS);
    // Like NSD: the zone's NS with positive answers, except for DNSKEY and
    // DS (large, and asked for by validators that do not want them).
    const RRset* ns = apex.find(type::NS);
    if (qtype_ != type::DNSKEY && qtype_ != type::DS && ns != set && ns != nullptr) {
      if (add(kAuthority, &apex.name, ns, sign_by(zone))) add_targets(zone, *ns, true);
    }
    return;
  }
  if (const RRset* cname = nd.find(type::CNAME)) {
    if (!add(kAnswer, &owner, cname, sign_by(zone))) return;  // a loop: already there
    if (depth + 1 > opt_.max_chain) return;
    auto target = Name::from_uncompressed(cname->rdatas.front());
    const Name* next = target ? keep(target.value()) : nullptr;
    if (next != nullptr) lookup(db, *next, depth + 1);
    return;
  }
  nodata(zone, node, wildcard_encloser, qname);
}

void Responder::nodata(const Zone& zone, std::uint32_t node, std::uint32_t wildcard_encloser,
                       const Name& qname) {
  add(kAuthority, &zone.origin(), &zone.negative_soa(), sign_by(zone));
  const Node& nd = zone.node(node);
  if (sign_by(zone) != nullptr) {
    // RFC 9824 §3.2: an NSEC owned by QNAME (an empty non-terminal's and a
    // wildcard's too: the wildcard node supplies the types) whose bitmap
    // lists what is there. At a cut (a DS query) only NS and DS are ours
    // (§3.4), and the next name must stay above the child's names.
    add_compact_nsec(kAuthority, zone, qname, &nd,
                     nd.cut ? signing::Denial::delegation : signing::Denial::nodata);
    return;
  }
  if (!dnssec(zone)) return;
  if (!zone.has_nsec3()) {
    add_nsec(zone, nd.name);  // at the name, or covering it (an empty non-terminal)
    return;
  }
  if (wildcard_encloser != kNoNode) {
    // RFC 5155 §7.2.5: closest encloser proof, then the wildcard's NSEC3.
    const Name& ce = zone.node(wildcard_encloser).name;
    add_nsec3_match(zone, ce);
    add_nsec3_cover(zone, qname.parent(qname.label_count() - ce.label_count() - 1));
  }
  add_nsec3_match(zone, nd.name);  // RFC 5155 §7.2.3 (and §7.2.4 at a cut)
  auto w = nd.name.wire();
  if (wildcard_encloser == kNoNode && w[0] == 1 && w[1] == '*') {
    // The wildcard's own name asked for: its closest encloser's NSEC3 too,
    // as for a wildcard NODATA (§7.2.5), which is what NSD sends.
    add_nsec3_match(zone, nd.name.parent(1));
  }
}

void Responder::nxdomain(const Zone& zone, std::uint32_t encloser, const Name& qname) {
  if (const Zone* signer = sign_by(zone)) {
    // RFC 9824 §3.1: NODATA for a name that does not exist, with an NSEC
    // that says so by NXNAME in its bitmap; NXDOMAIN only to a client
    // that said it understands compact answers (§5.1, the CO bit).
    rcode_ = static_cast<std::uint16_t>(co_ ? Rcode::nxdomain : Rcode::noerror);
    add(kAuthority, &zone.origin(), &zone.negative_soa(), signer);
    add_compact_nsec(kAuthority, zone, qname, nullptr, signing::Denial::nxname);
    return;
  }
  rcode_ = static_cast<std::uint16_t>(Rcode::nxdomain);
  add(kAuthority, &zone.origin(), &zone.negative_soa(), nullptr);
  if (!dnssec(zone)) return;
  const Name& ce = zone.node(encloser).name;
  auto star = Name::from_text("*", &ce);
  if (!zone.has_nsec3()) {
    // RFC 4035 §3.1.3.2: QNAME does not exist, and no wildcard could match.
    add_nsec(zone, qname);
    if (star) add_nsec(zone, star.value());
    return;
  }
  // RFC 5155 §7.2.2: the closest encloser proof and the wildcard's cover.
  add_nsec3_match(zone, ce);
  add_nsec3_cover(zone, qname.parent(qname.label_count() - ce.label_count() - 1));
  if (star) add_nsec3_cover(zone, star.value());
}

void Responder::referral(const Zone& zone, std::uint32_t cut, std::size_t depth) {
  // The referral is not authoritative; after a CNAME from our own data it
  // is (the answer so far is ours): NSD does the same.
  if (depth == 0) aa_ = false;
  const Node& nd = zone.node(cut);
  const RRset* ns = nd.find(type::NS);
  add(kAuthority, &nd.name, ns, nullptr);  // the child's data: never signed
  if (const Zone* signer = sign_by(zone)) {
    // RFC 9824 §3.4: a signed DS, or an NSEC proving there is none.
    if (const RRset* ds = nd.find(type::DS)) {
      add(kAuthority, &nd.name, ds, signer);
    } else {
      add_compact_nsec(kAuthority, zone, nd.name, &nd, signing::Denial::delegation);
    }
  } else if (dnssec(zone)) {
    if (const RRset* ds = nd.find(type::DS)) {
      add(kAuthority, &nd.name, ds, nullptr);
    } else if (zone.has_nsec3()) {
      add_nsec3_match(zone, nd.name);  // RFC 5155 §7.2.7
    } else {
      add(kAuthority, &nd.name, nd.find(type::NSEC), nullptr);
    }
  }
  add_glue(zone, *ns, nd.name);
}

void Responder::dname(const ZoneDb& db, const Zone& zone, std::uint32_t node, const Name& qname,
                      std::size_t labels_kept, std::size_t depth) {
  aa_ = true;
  const Node& nd = zone.node(node);
  const RRset* dn = nd.find(type::DNAME);
  if (!add(kAnswer, &nd.name, dn, sign_by(zone))) return;  // a DNAME loop
  // RFC 6672 §2.2: QNAME's labels above the DNAME owner, then the target.
  std::array<std::uint8_t, 128> at;
  (void)detail::label_offsets(qname, at);
  std::size_t prefix = at[labels_kept];  // octets of QNAME above the owner
  const Rdata& target = dn->rdatas.front();
  if (prefix + target.size() > kMaxNameWire) {
    rcode_ = static_cast<std::uint16_t>(Rcode::yxdomain);  // RFC 6672 §2.2
    return;
  }
  std::array<std::uint8_t, kMaxNameWire> buf;
  std::copy_n(qname.wire().begin(), prefix, buf.begin());
  std::copy(target.begin(), target.end(), buf.begin() + static_cast<std::ptrdiff_t>(prefix));
  auto next = Name::from_uncompressed({buf.data(), prefix + target.size()});
  if (!next || synth_.size() == synth_.capacity()) return;
  const Name* next_name = keep(next.value());
  if (next_name == nullptr) return;
  // The synthesised CNAME carries the DNAME's TTL (RFC 6672 §3.1) and no
  // signature: a validator checks the DNAME's instead.
  synth_.push_back(RRset{type::CNAME,
                         dn->ttl,
                         {Rdata(next_name->wire().begin(), next_name->wire().end())},
                         {},
                         0,
                         {}});
  add(kAnswer, &qname, &synth_.back(), nullptr);
  // A CNAME query is answered by the synthesised CNAME itself.
  if (qtype_ == type::CNAME || depth + 1 > opt_.max_chain) return;
  lookup(db, *next_name, depth + 1);
}

Outcome Responder::write_error(std::span<const std::uint8_t> query, std::uint16_t rcode,
                               std::vector<std::uint8_t>& out) {
  // Header only: the query's ID, opcode and RD, QR set, counts zero. The
  // rest of the query is not trusted (it failed to decode).
  out.assign(query.begin(), query.begin() + kHeaderSize);
  out[2] = static_cast<std::uint8_t>(0x80 | (query[2] & 0x79));  // QR, opcode, RD
  out[3] = static_cast<std::uint8_t>(rcode & 0xF);
  std::fill(out.begin() + 4, out.end(), 0);
  Outcome o;
  o.rcode = rcode;
  return o;
}

Outcome Responder::respond(const ZoneDb& db, std::span<const std::uint8_t> query,
                           Transport transport, std::vector<std::uint8_t>& out,
                           bool transfer_allowed, const Client& client) {
  out.clear();
  auto decoded = decode_query(query);
  if (!decoded) {
    switch (disposition(decoded.error().code)) {
      case Disposition::drop:
        return Outcome{true, 0, RRType{0}, false};
      case Disposition::notimp:
        return write_error(query, static_cast<std::uint16_t>(Rcode::notimp), out);
      default:
        return write_error(query, static_cast<std::uint16_t>(Rcode::formerr), out);
    }
  }
  const Message& q = decoded.value();
  reset();
  Outcome outcome;
  const Question& question = q.questions.front();
  qtype_ = question.qtype;
  outcome.qtype = qtype_;
  do_ = q.edns && q.edns->dnssec_ok;
  co_ = do_ && (q.edns->z & kCompactOk) != 0;
  now_ = client.now;
  std::size_t limit = 65535;
  if (transport == Transport::udp) {
    std::size_t offered = q.edns ? std::max<std::size_t>(q.edns->udp_size, 512) : 512;
    limit = std::min<std::size_t>(offered, std::max<std::size_t>(opt_.max_udp_payload, 512));
  }
  cookie_ = CookieState::none;
  if (q.edns && opt_.cookies) {
    if (auto cookie = q.edns->cookie()) {
      auto [client_cookie, server_cookie] = *cookie;
      cookie_ = server_cookie.empty() ? CookieState::client_only
                : valid_server_cookie(client_cookie, server_cookie, client.address, client.now,
                                      opt_.cookie_secret)
                    ? CookieState::valid
                    : CookieState::invalid;
    }
  }
  if (q.edns && q.edns->version != 0) {
    rcode_ = static_cast<std::uint16_t>(Rcode::badvers);  // RFC 6891 §6.1.3
  } else if (opt_.require_cookies && transport == Transport::udp &&
             (cookie_ == CookieState::client_only || cookie_ == CookieState::invalid)) {
    rcode_ = static_cast<std::uint16_t>(Rcode::badcookie);  // RFC 7873 §5.2.3-4
  } else if (static_cast<Opcode>(q.header.opcode) != Opcode::query ||
             question.qclass != rrclass::IN) {
    // Other opcodes (NOTIFY: no secondaries here) and classes: not served.
    rcode_ = static_cast<std::uint16_t>(Rcode::refused);
    ede_ = ede::kNotSupported;
  } else if (qtype_ == type::NXNAME) {
    // A meta-type that only denials carry (RFC 9824 §3.5).
    rcode_ = static_cast<std::uint16_t>(Rcode::formerr);
    ede_ = ede::kInvalidQueryType;
  } else if (qtype_ == type::AXFR || qtype_ == type::IXFR) {
    const Zone* zone = db.find_exact(question.qname);
    if (transport != Transport::tcp || !transfer_allowed) {
      rcode_ = static_cast<std::uint16_t>(Rcode::refused);
      ede_ = ede::kProhibited;
    } else if (zone == nullptr) {
      rcode_ = static_cast<std::uint16_t>(Rcode::notauth);  // RFC 5936 §2.2.1
      ede_ = ede::kNotAuthoritative;
    } else {
      write_transfer(*zone, q, out);
      outcome.framed = true;
      return outcome;
    }
  } else {
    lookup(db, question.qname, 0);
    if (!sign_entries()) {
      // An unsigned answer to a DO query of a signed zone would be bogus
      // to a validator anyway; say the server failed.
      for (auto& sec : sections_) sec.clear();
      rcode_ = static_cast<std::uint16_t>(Rcode::servfail);
      aa_ = false;
    }
    outcome.signing = signer_.counts();
  }
  encode(q, limit, out, outcome, client);
  return outcome;
}

void Responder::encode(const Message& q, std::size_t limit, std::vector<std::uint8_t>& out,
                       Outcome& outcome, const Client& client) {
  map_.clear();
  Edns opt;
  const bool with_opt = q.edns.has_value();
  if (with_opt) {
    opt.udp_size = opt_.max_udp_payload;
    opt.dnssec_ok = do_;
    opt.z = co_ ? kCompactOk : 0;  // RFC 9824 §5.1: CO answered with CO
    opt.extended_rcode = static_cast<std::uint8_t>(rcode_ >> 4);
    if (!opt_.nsid.empty() && q.edns->nsid()) opt.options.push_back({option::NSID, opt_.nsid});
    if (ede_ != 0xFFFF) opt.add_extended_error({ede_, {}});
    if (auto cookie = q.edns->cookie(); cookie && opt_.cookies) {
      auto [client_cookie, server_cookie] = *cookie;
      outcome.cookie = cookie_;
      ServerCookie fresh =
          make_server_cookie(client_cookie, client.address, client.now, opt_.cookie_secret);
      std::vector<std::uint8_t> data(client_cookie.begin(), client_cookie.end());
      data.insert(data.end(), fresh.begin(), fresh.end());
      opt.options.push_back({option::COOKIE, std::move(data)});
    }
  }
  // Without EDNS an extended RCODE cannot be said; BADVERS only arises with
  // EDNS, so this never loses information.
  std::size_t opt_size = with_opt ? opt.wire_size() : 0;
  Writer w(out, limit - opt_size);
  Header h;
  h.id = q.header.id;
  h.qr = true;
  h.opcode = q.header.opcode;
  h.aa = aa_ && rcode_ != static_cast<std::uint16_t>(Rcode::refused);
  h.rd = q.header.rd;
  h.rcode = static_cast<std::uint8_t>(rcode_ & 0xF);
  h.write(w);
  const Question& question = q.questions.front();
  map_.write_stable_name(w, question.qname);
  w.u16(question.qtype.value);
  w.u16(question.qclass.value);

  std::uint16_t counts[3] = {0, 0, 0};
  bool stop = false;
  for (int s = 0; s < 3 && !stop; ++s) {
    for (const Entry& e : sections_[s]) {
      std::size_t mark = w.size();
      auto map_mark = map_.mark();
      std::uint16_t n = 0;
      auto put = [&](RRType t, std::uint32_t ttl, std::span<const std::uint8_t> rd) {
        map_.write_stable_name(w, *e.owner);
        w.u16(t.value);
        w.u16(rrclass::IN.value);
        w.u32(ttl);
        std::size_t len_at = w.size();
        w.u16(0);
        valid_rdata_to_wire(t, rd, w, map_);
        if (w.overflow()) return;
        w.patch_u16(len_at, static_cast<std::uint16_t>(w.size() - len_at - 2));
        ++n;
      };
      if (!e.sigs_only) {
        for (const Rdata& rd : e.set->rdatas) put(e.set->type, e.set->ttl, rd);
      }
      if (e.signer != nullptr) {
        // Made for this answer; an RRSIG's TTL is its RRset's (RFC 4034 §3).
        for (std::size_t i = 0; i < e.sigs.count; ++i)
          put(type::RRSIG, e.set->ttl, signer_.rrsig(e.sigs, i));
      } else if (do_ || e.sigs_only) {
        for (const Rdata& rd : e.set->sigs) put(type::RRSIG, e.set->sig_ttl, rd);
      }
      if (w.overflow()) {
        // Whole RRsets only (RFC 2181 §9); the compression entries the
        // partial set made are rolled back with it.
        w.truncate(mark);
        map_.rollback(map_mark);
        if (s != kAdditional || e.required) {
          h.tc = true;
          outcome.truncated = true;
        }
        stop = true;
        break;
      }
      counts[s] = static_cast<std::uint16_t>(counts[s] + n);
    }
  }
  w.set_limit(limit);
  if (with_opt) opt.write(w);
  w.patch_u16(2, h.flags());
  w.patch_u16(4, 1);
  w.patch_u16(6, counts[0]);
  w.patch_u16(8, counts[1]);
  w.patch_u16(10, static_cast<std::uint16_t>(counts[2] + (with_opt ? 1 : 0)));
  outcome.rcode = rcode_;
}

}  // namespace herald::dns
