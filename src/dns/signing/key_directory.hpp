// The directory of signing keys (`dns.keys_dir`), and the zones it makes
// online.
//
// One directory for all zones, as BIND's key-directory and Knot's KASP
// database are, rather than keys beside each zone file: zone files may be
// listed from anywhere (`dns.zones`), and a key file's name already says
// its zone (K<origin>+<alg>+<tag>.private). The directory may be the zones
// directory itself: zone_directory() takes only "*.zone" files.
//
// A zone is signed online exactly when the directory holds a private key
// for it. A zone whose keys do not load is not served at all: served
// unsigned, it would be bogus to every validator that has its DS. Keys for
// zones not served are not used, but heraldd warns of each at load
// (unserved()): a zone misspelled in dns.zones would otherwise be served
// unsigned without a word. The directory is read once per (re)load, so a
// key change takes effect on the next reload.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "dns/name.hpp"
#include "dns/zone_db.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns::signing {

class KeyDirectory {
 public:
  // Lists `dir`'s K*.private files by their zone. A file named like a key
  // whose zone part is not a domain name is an error of that file; a
  // directory that cannot be read is an error, and readable() is false.
  static KeyDirectory scan(const std::string& dir, std::vector<ZoneError>& errors);

  // False when the directory could not be listed: then which zones are
  // signed online is unknown, and none may be served as if unsigned.
  bool readable() const noexcept { return readable_; }

  // The private key files of `origin` (any case), sorted; empty if none.
  const std::vector<std::string>& files_for(const Name& origin) const;

  // The zones with keys here that no source serves, in canonical order.
  std::vector<Name> unserved(const std::vector<ZoneSource>& sources) const;

 private:
  std::unordered_map<Name, std::vector<std::string>, NameIHash, NameIEqual> files_;
  bool readable_ = false;
};

// Loads the keys of every source that has some in `keys` and attaches
// them (ZoneSource::online). A source whose keys fail to load is removed,
// its errors appended to `errors`; returns how many were removed.
std::size_t attach_keys(const KeyDirectory& keys, std::vector<ZoneSource>& sources,
                        std::vector<ZoneError>& errors);

}  // namespace herald::dns::signing
