#include "dns/signing/key_directory.hpp"

#include <algorithm>
#include <filesystem>

#include "dns/signing/canonical.hpp"
#include "dns/signing/key_file.hpp"
#include "dns/signing/zone_keys.hpp"

namespace herald::dns::signing {

namespace {
const std::vector<std::string> kNoFiles;
}  // namespace

KeyDirectory KeyDirectory::scan(const std::string& dir, std::vector<ZoneError>& errors) {
  namespace fs = std::filesystem;
  KeyDirectory out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    errors.push_back({dir, 0, 0, "cannot read dns.keys_dir: " + ec.message()});
    return out;
  }
  out.readable_ = true;
  for (const fs::directory_entry& e : it) {
    const std::string file = e.path().filename().string();
    if (!file.starts_with('K') || !file.ends_with(".private") || !e.is_regular_file(ec)) continue;
    auto named = parse_key_file_name(file);
    if (!named) {
      errors.push_back({e.path().string(), 0, 0,
                        "not a key file name: K<zone>+<algorithm>+<tag>.private, e.g. "
                        "Kexample.com.+013+12345.private"});
      continue;
    }
    out.files_[named->origin].push_back(e.path().string());
  }
  for (auto& [origin, files] : out.files_) std::sort(files.begin(), files.end());
  return out;
}

const std::vector<std::string>& KeyDirectory::files_for(const Name& origin) const {
  auto it = files_.find(origin);
  return it == files_.end() ? kNoFiles : it->second;
}

std::vector<Name> KeyDirectory::unserved(const std::vector<ZoneSource>& sources) const {
  std::vector<Name> out;
  for (const auto& entry : files_) {
    const Name& origin = entry.first;
    const bool served = std::any_of(sources.begin(), sources.end(), [&](const ZoneSource& s) {
      return NameIEqual{}(s.origin, origin);
    });
    if (!served) out.push_back(origin);
  }
  std::sort(out.begin(), out.end(),
            [](const Name& a, const Name& b) { return a.canonical_compare(b) < 0; });
  return out;
}

std::size_t attach_keys(const KeyDirectory& keys, std::vector<ZoneSource>& sources,
                        std::vector<ZoneError>& errors) {
  std::size_t removed = 0;
  std::vector<ZoneSource> kept;
  kept.reserve(sources.size());
  for (ZoneSource& src : sources) {
    const std::vector<std::string>& files = keys.files_for(src.origin);
    if (!files.empty()) {
      auto loaded = ZoneKeys::load(src.origin, files);
      if (!loaded) {
        for (const ZoneError& e : loaded.error()) errors.push_back(e);
        errors.push_back({src.path, 0, 0,
                          "zone " + src.origin.to_text() +
                              " not served: its keys did not load (above); it must not be "
                              "served unsigned"});
        ++removed;
        continue;
      }
      auto online = std::make_shared<OnlineSigning>();
      online->keys = *loaded;
      for (std::size_t i = 0; i < (*loaded)->size(); ++i)
        online->dnskeys.push_back((*loaded)->key(i).dnskey);
      online->key_file = (*loaded)->first_file();
      online->signable = &canonical_form_known;
      src.online = std::move(online);
    }
    kept.push_back(std::move(src));
  }
  sources = std::move(kept);
  return removed;
}

}  // namespace herald::dns::signing
