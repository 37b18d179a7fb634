// The set of zones a server is authoritative for, and the longest-match
// lookup every query starts with (RFC 1034 §4.3.2 step 2: the nearest
// ancestor of QNAME that is a zone apex).
//
// Zone apexes sit in one case-insensitive hash index (detail/name_index.hpp).
// A lookup hashes the query name's suffixes from the longest candidate down:
// at most max_labels() + 1 probes (the deepest apex bounds where to start),
// each on the wire octets in place, so finding the zone of a query makes no
// copy of the name and no allocation, however many zones there are.
//
// A ZoneDb is immutable once loaded and shared read-only by every serving
// thread; a reload builds a new one and swaps the pointer (ZoneStore).
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "dns/zone.hpp"

namespace herald::dns {

class ZoneDb {
 public:
  // The zone whose apex is the longest suffix of `qname`, or nullptr.
  const Zone* find(const Name& qname) const noexcept;
  // The zone whose apex is exactly `origin`, or nullptr.
  const Zone* find_exact(const Name& origin) const noexcept;
  // The zone enclosing the parent side of `zone`'s apex (DS lives there), or
  // nullptr when we do not serve it.
  const Zone* find_parent(const Zone& zone) const noexcept;

  std::size_t size() const noexcept { return zones_.size(); }
  const Zone& zone(std::size_t i) const noexcept { return *zones_[i]; }
  std::size_t max_labels() const noexcept { return max_labels_; }

  // A database of `zones`, whose origins must be distinct (load_zones
  // reports duplicates before it gets here).
  explicit ZoneDb(std::vector<std::shared_ptr<const Zone>> zones = {});

 private:
  std::span<const std::uint8_t> origin_wire(std::uint32_t z) const noexcept {
    return {origins_.data() + origin_at_[z], origins_.data() + origin_at_[z + 1]};
  }
  std::vector<std::shared_ptr<const Zone>> zones_;
  // Every apex's wire form, back to back (zone z at origin_at_[z] up to
  // origin_at_[z + 1]): a probe's confirming compare reads this one array
  // instead of following two pointers into the zone. Measured on D1 (20,000
  // zones, perf): ZoneDb::find went from 9.6% to 4.3% of the server's
  // samples (docs/benchmarks.md).
  std::vector<std::uint8_t> origins_;
  std::vector<std::uint32_t> origin_at_;
  detail::NameIndex index_;
  std::size_t max_labels_ = 0;
};

// Where a zone comes from: its origin and its master file, and its keys
// when it is signed online (signing/key_directory.hpp attaches them).
struct ZoneSource {
  Name origin;
  std::string path;
  std::shared_ptr<const OnlineSigning> online = {};
};

struct DbLoad {
  std::shared_ptr<const ZoneDb> db;  // every zone that loaded
  std::vector<ZoneError> errors;     // of the zones that did not, file:line
  std::size_t failed = 0;            // zones left out
};

// Loads every listed zone; a zone with errors is left out and reported, and
// the others are served.
DbLoad load_zones(const std::vector<ZoneSource>& sources, const ZoneLimits& limits = {});

// The zones of a directory: every regular file named "<origin>.zone"
// ("example.com.zone" holds example.com.). Other files (notes, unsigned
// sources, scripts) and hidden files are not zones and are skipped. A name
// that is not a domain name is reported as an error of that file.
std::vector<ZoneSource> zone_directory(const std::string& dir, std::vector<ZoneError>& errors);

// The active database, swapped whole on reload. Readers take a shared_ptr
// per batch of queries; a swap never waits for them and the old database
// lives until its last reader drops it.
//
// A mutex, not std::atomic<std::shared_ptr>: GCC 12 implements the latter
// with a lock bit inside the pointer that ThreadSanitizer cannot see, so
// every reload reported a race. The lock is held for one reference-count
// increment, once per batch of up to 32 datagrams (or one TCP query).
class ZoneStore {
 public:
  std::shared_ptr<const ZoneDb> get() const {
    std::lock_guard lock(mutex_);
    return db_;
  }
  void set(std::shared_ptr<const ZoneDb> db) {
    std::lock_guard lock(mutex_);
    db_.swap(db);
    // The old database is released after the unlock, when `db` goes out of
    // scope: freeing 20,000 zones does not happen under the lock.
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const ZoneDb> db_ = std::make_shared<const ZoneDb>();
};

}  // namespace herald::dns
