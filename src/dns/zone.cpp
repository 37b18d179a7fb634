#include "dns/zone.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <unordered_map>

#include "dns/detail/text_codecs.hpp"

namespace herald::dns {

namespace {

std::uint16_t covered_type(const Rdata& rrsig) {
  // RRSIG RDATA starts with the type covered (RFC 4034 §3.1); the codec
  // checked the layout, so the two octets are there.
  return static_cast<std::uint16_t>(rrsig[0] << 8 | rrsig[1]);
}

std::uint32_t read_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

// Zone generations are never reused in a process: a cache keyed on one
// cannot mistake a reloaded zone for the zone it replaced.
std::atomic<std::uint64_t> next_generation{1};

bool add_rdata(RRset& set, Rdata rdata) {
  // Identical records are one record (RFC 2181 §5): keep the first.
  if (std::find(set.rdatas.begin(), set.rdatas.end(), rdata) != set.rdatas.end()) return false;
  set.rdatas.push_back(std::move(rdata));
  return true;
}

}  // namespace

std::uint32_t Zone::nsec_for(const Name& n) const noexcept {
  if (nsec_nodes_.empty()) return kNoNode;
  // The first NSEC owner after n; the one before it matches or covers n.
  auto it = std::upper_bound(nsec_nodes_.begin(), nsec_nodes_.end(), n,
                             [this](const Name& key, std::uint32_t i) {
                               return key.canonical_compare(nodes_[i].name) < 0;
                             });
  if (it == nsec_nodes_.begin()) return nsec_nodes_.front();
  return *(it - 1);
}

namespace {
bool hash_less(const Nsec3Node& a, std::span<const std::uint8_t> h) {
  return std::lexicographical_compare(a.hash.begin(), a.hash.end(), h.begin(), h.end());
}
}  // namespace

const Nsec3Node* Zone::nsec3_match(std::span<const std::uint8_t> hash) const noexcept {
  auto it = std::lower_bound(nsec3_.begin(), nsec3_.end(), hash, hash_less);
  if (it != nsec3_.end() && std::equal(it->hash.begin(), it->hash.end(), hash.begin(), hash.end()))
    return &*it;
  return nullptr;
}

const Nsec3Node* Zone::nsec3_cover(std::span<const std::uint8_t> hash) const noexcept {
  if (nsec3_.empty()) return nullptr;
  // The last record whose hash is <= hash; before the first one, the chain
  // wraps: the last record covers from its hash round to the first.
  auto it = std::upper_bound(
      nsec3_.begin(), nsec3_.end(), hash, [](std::span<const std::uint8_t> h, const Nsec3Node& a) {
        return std::lexicographical_compare(h.begin(), h.end(), a.hash.begin(), a.hash.end());
      });
  if (it == nsec3_.begin()) return &nsec3_.back();
  return &*(it - 1);
}

struct ZoneBuilder {
  static constexpr std::size_t kWholeZone = static_cast<std::size_t>(-1);
  ZoneBuilder(const Name& o, ZoneResult& p, const ZoneLimits& l, const OnlineSigning* on,
              std::vector<ZoneError>& e)
      : origin(o), parsed(p), limits(l), online(on), errors(e) {}
  const Name& origin;
  ZoneResult& parsed;
  const ZoneLimits& limits;
  const OnlineSigning* online;
  bool iterations_reported = false;
  std::vector<ZoneError>& errors;
  std::shared_ptr<Zone> zone = std::make_shared<Zone>();
  std::unordered_map<Name, std::uint32_t, NameIHash, NameIEqual> by_name;
  std::vector<std::vector<std::size_t>> first_record;  // per node, per rrset
  std::unordered_map<Name, std::size_t, NameIHash, NameIEqual> nsec3_by_name;

  void error(std::size_t rec, std::string msg) {
    ZoneError e;
    if (rec < parsed.sources.size()) {
      const RecordSource& s = parsed.sources[rec];
      e.file = s.file < parsed.files.size() ? parsed.files[s.file] : std::string();
      e.line = s.line;
    } else if (!parsed.files.empty()) {
      e.file = parsed.files.front();  // a zone-wide error (no record at fault)
    }
    e.column = 1;
    e.message = std::move(msg);
    errors.push_back(std::move(e));
  }

  std::uint32_t node_for(const Name& n) {
    auto [it, fresh] = by_name.try_emplace(n, static_cast<std::uint32_t>(zone->nodes_.size()));
    if (fresh) {
      zone->nodes_.push_back(Node{{}, kNoNode, kNoNode, false, false, n});
      first_record.emplace_back();
    }
    return it->second;
  }

  RRset& rrset_for(std::uint32_t node, RRType t, std::uint32_t ttl, std::size_t rec) {
    Node& nd = zone->nodes_[node];
    for (RRset& s : nd.rrsets) {
      if (s.type == t) return s;
    }
    nd.rrsets.push_back(RRset{t, ttl, {}, {}, 0, {}});
    first_record[node].push_back(rec);
    return nd.rrsets.back();
  }

  std::size_t source_of(std::uint32_t node, RRType t) const {
    const Node& nd = zone->nodes_[node];
    for (std::size_t k = 0; k < nd.rrsets.size(); ++k) {
      if (nd.rrsets[k].type == t) return first_record[node][k];
    }
    return 0;
  }

  void add_records() {
    struct PendingSig {
      Name owner;
      std::uint16_t covered;
      std::uint32_t ttl;
      Rdata rdata;
      std::size_t rec;
    };
    std::vector<PendingSig> sigs;
    for (std::size_t i = 0; i < parsed.records.size(); ++i) {
      Record& r = parsed.records[i];
      if (r.rclass != rrclass::IN) {
        error(i, "class " + class_to_text(r.rclass) + ": only IN zones are served");
        continue;
      }
      if (!r.owner.is_subdomain_of(origin)) {
        error(i, "owner " + r.owner.to_text() + " is outside the zone " + origin.to_text());
        continue;
      }
      if (online != nullptr && !signable_online(r, i)) continue;
      ++zone->record_count_;
      if (r.type == type::NSEC3 || r.type == type::NSEC3PARAM) check_iterations(r, i);
      if (r.type == type::RRSIG) {
        sigs.push_back({r.owner, covered_type(r.rdata), r.ttl, std::move(r.rdata), i});
        continue;
      }
      if (r.type == type::NSEC3) {
        add_nsec3(r, i);
        continue;
      }
      std::uint32_t n = node_for(r.owner);
      add_rdata(rrset_for(n, r.type, r.ttl, i), std::move(r.rdata));
    }
    for (PendingSig& s : sigs) {
      RRset* set = nullptr;
      if (s.covered == type::NSEC3.value) {
        auto it = nsec3_by_name.find(s.owner);
        if (it != nsec3_by_name.end()) set = &zone->nsec3_[it->second].nsec3;
      } else if (auto it = by_name.find(s.owner); it != by_name.end()) {
        for (RRset& candidate : zone->nodes_[it->second].rrsets) {
          if (candidate.type.value == s.covered) set = &candidate;
        }
      }
      if (set == nullptr) {
        error(s.rec, "RRSIG covers " + type_to_text(RRType{s.covered}) + " but " +
                         s.owner.to_text() + " has no such records");
        continue;
      }
      if (set->sigs.empty()) set->sig_ttl = s.ttl;
      if (std::find(set->sigs.begin(), set->sigs.end(), s.rdata) == set->sigs.end())
        set->sigs.push_back(std::move(s.rdata));
    }
  }

  // A zone signed online makes its own signatures and denials; a record
  // the server would make, or could not sign, is an error at its line.
  bool signable_online(const Record& r, std::size_t rec) {
    if (r.type == type::RRSIG || r.type == type::NSEC || r.type == type::NSEC3 ||
        r.type == type::NSEC3PARAM) {
      error(rec, type_to_text(r.type) + " in a zone signed online (keys: " + online->key_file +
                     "): remove the signatures and denial records, or the keys");
      return false;
    }
    if (online->signable != nullptr && !online->signable(r.type)) {
      error(rec, type_to_text(r.type) +
                     " cannot be signed online (RFC 4034 §6.2 lower-cases names inside it and "
                     "this server has no layout for it): remove it, or serve the zone pre-signed");
      return false;
    }
    return true;
  }

  // The keys' DNSKEYs at the apex, beside any the file publishes (a key
  // published ahead of its use), with the SOA's TTL (Knot's choice).
  void publish_keys() {
    const std::uint32_t apex = by_name.at(origin);
    const std::uint32_t ttl = zone->nodes_[apex].find(type::SOA)->ttl;
    RRset& set = rrset_for(apex, type::DNSKEY, ttl, kWholeZone);
    for (const Rdata& k : online->dnskeys) add_rdata(set, k);
    zone->keys_ = online->keys;
  }

  // Once per zone: a chain holds thousands of NSEC3 records with the same
  // parameters, and one line says what to fix.
  void check_iterations(const Record& r, std::size_t rec) {
    // NSEC3 and NSEC3PARAM share the prefix: alg, flags, iterations (the
    // parser checked the RDATA's layout, so the octets are there).
    const std::uint16_t iterations = static_cast<std::uint16_t>(r.rdata[2] << 8 | r.rdata[3]);
    if (iterations <= limits.max_nsec3_iterations || iterations_reported) return;
    iterations_reported = true;
    error(rec, type_to_text(r.type) + " has " + std::to_string(iterations) +
                   " iterations, over dns.max_nsec3_iterations (" +
                   std::to_string(limits.max_nsec3_iterations) +
                   "); RFC 9276 asks for 0: re-sign the zone with 0 iterations and no salt "
                   "(ldns-signzone -n -t 0)");
  }

  void add_nsec3(Record& r, std::size_t rec) {
    if (r.owner.label_count() != origin.label_count() + 1) {
      error(rec, "NSEC3 owner " + r.owner.to_text() + " is not one label below the apex");
      return;
    }
    auto wire = r.owner.wire();
    // Safety: a name's wire form starts with its first label's length
    // octet, and the label's octets follow it inside the same buffer; they
    // are read as chars of the same size.
    std::string_view label(reinterpret_cast<const char*>(wire.data() + 1), wire[0]);
    std::vector<std::uint8_t> hash;
    if (!detail::base32hex_decode(label, hash) || hash.empty()) {
      error(rec, "NSEC3 owner label is not a base32hex hash");
      return;
    }
    auto [it, fresh] = nsec3_by_name.try_emplace(r.owner, zone->nsec3_.size());
    if (fresh)
      zone->nsec3_.push_back(
          Nsec3Node{std::move(hash), r.owner, RRset{r.type, r.ttl, {}, {}, 0, {}}});
    add_rdata(zone->nsec3_[it->second].nsec3, std::move(r.rdata));
  }

  void check_nodes() {
    auto apex_it = by_name.find(origin);
    if (apex_it == by_name.end() || zone->nodes_[apex_it->second].find(type::SOA) == nullptr) {
      error(kWholeZone, "no SOA record at the apex " + origin.to_text());
    }
    for (std::uint32_t n = 0; n < zone->nodes_.size(); ++n) {
      const Node& nd = zone->nodes_[n];
      bool apex = nd.name.iequals(origin);
      if (const RRset* soa = nd.find(type::SOA)) {
        if (!apex) {
          error(source_of(n, type::SOA), "SOA at " + nd.name.to_text() + ", not at the apex");
        } else if (soa->rdatas.size() != 1) {
          error(source_of(n, type::SOA), "more than one SOA record at the apex");
        }
      }
      if (apex && nd.find(type::NS) == nullptr && nd.find(type::SOA) != nullptr) {
        error(source_of(n, type::SOA), "no NS records at the apex " + origin.to_text());
      }
      if (const RRset* cname = nd.find(type::CNAME)) {
        if (cname->rdatas.size() > 1) {
          error(source_of(n, type::CNAME), "more than one CNAME at " + nd.name.to_text());
        }
        for (const RRset& other : nd.rrsets) {
          if (other.type == type::CNAME || other.type == type::NSEC) continue;
          error(source_of(n, other.type), type_to_text(other.type) + " beside a CNAME at " +
                                              nd.name.to_text() + " (RFC 2181 §10.1)");
        }
      }
      if (const RRset* dname = nd.find(type::DNAME); dname != nullptr && dname->rdatas.size() > 1) {
        error(source_of(n, type::DNAME), "more than one DNAME at " + nd.name.to_text());
      }
    }
  }

  void add_empty_non_terminals() {
    std::size_t count = zone->nodes_.size();
    for (std::size_t n = 0; n < count; ++n) {
      Name p = zone->nodes_[n].name;
      while (p.label_count() > origin.label_count()) {
        p = p.parent(1);
        if (by_name.contains(p)) break;  // its ancestors were added with it
        node_for(p);
      }
    }
  }

  void index() {
    std::vector<Node>& nodes = zone->nodes_;
    // Canonical order; the apex is the least name of the zone, so it is first.
    std::vector<std::uint32_t> order(nodes.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return nodes[a].name.canonical_compare(nodes[b].name) < 0;
    });
    std::vector<Node> sorted;
    sorted.reserve(nodes.size());
    for (std::uint32_t i : order) sorted.push_back(std::move(nodes[i]));
    nodes = std::move(sorted);
    for (Node& nd : nodes) {
      std::sort(nd.rrsets.begin(), nd.rrsets.end(),
                [](const RRset& a, const RRset& b) { return a.type < b.type; });
    }
    // A target with no node of its own is answered by the wildcard of its
    // closest encloser, if that has one and is neither a cut nor below one
    // (RFC 4592 §3.3.1; NSD does the same in the additional section).
    auto wildcard_for = [](const Zone& z, std::span<const std::uint8_t> wire) -> std::uint32_t {
      auto name = Name::from_uncompressed(wire);
      if (!name || !name->is_subdomain_of(z.origin())) return kNoNode;
      for (std::size_t up = 1; up <= name->label_count() - z.origin().label_count(); ++up) {
        std::uint32_t e = z.find(name->parent(up));
        if (e == kNoNode) continue;
        const Node& enc = z.node(e);
        if (enc.cut || enc.occluded || enc.wildcard == kNoNode || z.node(enc.wildcard).cut)
          return kNoNode;
        return kWildcardTarget | enc.wildcard;
      }
      return kNoNode;
    };
    zone->index_.build(static_cast<std::uint32_t>(nodes.size()),
                       [&](std::uint32_t i) { return nodes[i].name.wire(); });
    // A parent precedes its children in canonical order, so one forward pass
    // sees every parent's flags final before its children read them.
    for (std::uint32_t i = 1; i < nodes.size(); ++i) {
      Node& nd = nodes[i];
      nd.parent = zone->find(nd.name.parent(1));
      const Node& parent = nodes[nd.parent];
      nd.occluded = parent.occluded || parent.cut || (parent.find(type::DNAME) != nullptr);
      nd.cut = nd.find(type::NS) != nullptr;
      auto w = nd.name.wire();
      if (w[0] == 1 && w[1] == '*') nodes[nd.parent].wildcard = i;
    }
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].find(type::NSEC) != nullptr) zone->nsec_nodes_.push_back(i);
      for (RRset& set : nodes[i].rrsets) {
        if (set.type != type::NS && set.type != type::MX && set.type != type::SRV) continue;
        // The target name's offset in the RDATA: NS at 0, MX after the
        // preference, SRV after priority, weight and port.
        std::size_t at = set.type == type::MX ? 2 : set.type == type::SRV ? 6 : 0;
        for (const Rdata& rd : set.rdatas) {
          auto target = std::span<const std::uint8_t>(rd).subspan(at);
          std::uint32_t n = zone->find(target);
          if (n == kNoNode) n = wildcard_for(*zone, target);
          set.targets.push_back(n);
        }
      }
    }
    std::sort(zone->nsec3_.begin(), zone->nsec3_.end(),
              [](const Nsec3Node& a, const Nsec3Node& b) { return a.hash < b.hash; });
    const RRset* param = nodes[0].find(type::NSEC3PARAM);
    const Rdata* p = param != nullptr        ? &param->rdatas.front()
                     : !zone->nsec3_.empty() ? &zone->nsec3_.front().nsec3.rdatas.front()
                                             : nullptr;
    if (p != nullptr) {
      // NSEC3 and NSEC3PARAM share the prefix: alg, flags, iterations, salt.
      const Rdata& d = *p;
      zone->nsec3_params_.algorithm = d[0];
      zone->nsec3_params_.iterations = static_cast<std::uint16_t>(d[2] << 8 | d[3]);
      zone->nsec3_params_.salt.assign(d.begin() + 5, d.begin() + 5 + d[4]);
    }
    zone->soa_ = nodes[0].find(type::SOA);
    const Rdata& soa = zone->soa_->rdatas.front();
    zone->negative_ttl_ = std::min(zone->soa_->ttl, read_u32(soa.data() + soa.size() - 4));
    zone->negative_soa_ = *zone->soa_;
    zone->negative_soa_.ttl = zone->negative_ttl_;
    zone->negative_soa_.sig_ttl = std::min(zone->negative_soa_.sig_ttl, zone->negative_ttl_);
    zone->generation_ = next_generation.fetch_add(1, std::memory_order_relaxed);
  }
};

ZoneLoad build_zone(const Name& origin, ZoneResult parsed, const ZoneLimits& limits,
                    const OnlineSigning* online) {
  ZoneLoad out;
  out.errors = std::move(parsed.errors);
  std::size_t parse_errors = out.errors.size();
  ZoneBuilder b(origin, parsed, limits, online, out.errors);
  b.add_records();
  b.check_nodes();
  if (out.errors.size() > parse_errors || parse_errors > 0) return out;
  if (online != nullptr) b.publish_keys();
  b.add_empty_non_terminals();
  b.index();
  out.zone = std::move(b.zone);
  return out;
}

ZoneLoad load_zone_file(const std::string& path, const Name& origin, const ZoneLimits& limits,
                        const OnlineSigning* online) {
  ZoneOptions opt;
  opt.origin = origin;
  ZoneLoad z = build_zone(origin, parse_zone_file(path, opt), limits, online);
  for (ZoneError& e : z.errors) {
    if (e.file.empty()) e.file = path;  // a zone-wide error of a file with no records
  }
  return z;
}

}  // namespace herald::dns
