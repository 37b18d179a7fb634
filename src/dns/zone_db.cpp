#include "dns/zone_db.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <unordered_set>

#include "dns/detail/label_offsets.hpp"

namespace herald::dns {

namespace {}  // namespace

const Zone* ZoneDb::find(const Name& qname) const noexcept {
  if (zones_.empty()) return nullptr;
  std::array<std::uint8_t, 128> at;
  std::size_t labels = detail::label_offsets(qname, at);
  auto w = qname.wire();
  // Longest candidate first: no apex has more than max_labels_ labels.
  std::size_t skip = labels > max_labels_ ? labels - max_labels_ : 0;
  for (; skip <= labels; ++skip) {
    auto suffix = w.subspan(at[skip]);
    std::uint32_t i = index_.find(suffix, detail::NameIndex::hash(suffix),
                                  [this](std::uint32_t z) { return origin_wire(z); });
    if (i != detail::NameIndex::kNone) return zones_[i].get();
  }
  return nullptr;
}

const Zone* ZoneDb::find_exact(const Name& origin) const noexcept {
  auto w = origin.wire();
  std::uint32_t i = index_.find(w, detail::NameIndex::hash(w),
                                [this](std::uint32_t z) { return origin_wire(z); });
  return i == detail::NameIndex::kNone ? nullptr : zones_[i].get();
}

const Zone* ZoneDb::find_parent(const Zone& zone) const noexcept {
  if (zone.origin().is_root()) return nullptr;
  return find(zone.origin().parent(1));
}

ZoneDb::ZoneDb(std::vector<std::shared_ptr<const Zone>> zones) : zones_(std::move(zones)) {
  origin_at_.push_back(0);
  for (const auto& z : zones_) {
    max_labels_ = std::max(max_labels_, z->origin().label_count());
    auto w = z->origin().wire();
    origins_.insert(origins_.end(), w.begin(), w.end());
    origin_at_.push_back(static_cast<std::uint32_t>(origins_.size()));
  }
  index_.build(static_cast<std::uint32_t>(zones_.size()),
               [this](std::uint32_t z) { return origin_wire(z); });
}

DbLoad load_zones(const std::vector<ZoneSource>& sources, const ZoneLimits& limits) {
  DbLoad out;
  std::vector<std::shared_ptr<const Zone>> zones;
  std::unordered_set<Name, NameIHash, NameIEqual> seen;
  for (const ZoneSource& src : sources) {
    if (!seen.insert(src.origin).second) {
      ++out.failed;
      out.errors.push_back({src.path, 0, 0, "zone " + src.origin.to_text() + " is listed twice"});
      continue;
    }
    ZoneLoad z = load_zone_file(src.path, src.origin, limits, src.online.get());
    if (!z.zone) {
      ++out.failed;
      for (ZoneError& e : z.errors) out.errors.push_back(std::move(e));
      continue;
    }
    zones.push_back(std::move(z.zone));
  }
  out.db = std::make_shared<const ZoneDb>(std::move(zones));
  return out;
}

std::vector<ZoneSource> zone_directory(const std::string& dir, std::vector<ZoneError>& errors) {
  namespace fs = std::filesystem;
  std::vector<ZoneSource> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    errors.push_back({dir, 0, 0, "cannot read the zones directory: " + ec.message()});
    return out;
  }
  for (const fs::directory_entry& e : it) {
    std::string file = e.path().filename().string();
    if (file.empty() || file[0] == '.' || !e.is_regular_file(ec)) continue;
    if (file.size() <= 5 || !file.ends_with(".zone")) continue;
    std::string origin = file.substr(0, file.size() - 5) + ".";
    auto name = Name::from_text(origin);
    if (!name) {
      errors.push_back(
          {e.path().string(), 0, 0, "the file name is not a zone name (want <origin>[.zone])"});
      continue;
    }
    out.push_back({name.value(), e.path().string()});
  }
  // Directory order is arbitrary; sort so loads and their errors repeat.
  std::sort(out.begin(), out.end(),
            [](const ZoneSource& a, const ZoneSource& b) { return a.path < b.path; });
  return out;
}

}  // namespace herald::dns
