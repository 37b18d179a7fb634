#include "dns/signing/zone_keys.hpp"

#include <algorithm>

namespace herald::dns::signing {

herald::Result<std::shared_ptr<const ZoneKeys>, std::vector<ZoneError>> ZoneKeys::load(
    const Name& origin, std::span<const std::string> private_files) {
  std::vector<ZoneError> errors;
  // Not make_shared: the constructor is private (only load() makes one).
  std::shared_ptr<ZoneKeys> z(new ZoneKeys());
  z->signer_ = origin.lowercased();
  for (const std::string& path : private_files) {
    auto k = read_key_pair(path, origin);
    if (!k) {
      errors.push_back(k.error());
      continue;
    }
    z->keys_.push_back(std::move(*k));
  }
  if (!errors.empty()) return Fail{std::move(errors)};
  auto zone_error = [&](std::string message) {
    errors.push_back(ZoneError{z->keys_.empty() ? std::string() : z->keys_.front().private_path, 0,
                               0, std::move(message)});
    return Fail{std::move(errors)};
  };
  if (z->keys_.empty()) return zone_error("no key files for " + origin.to_text());
  const std::uint8_t alg = z->keys_.front().algorithm;
  for (const SigningKey& k : z->keys_) {
    if (k.algorithm != alg) {
      return zone_error("the keys of " + origin.to_text() + " have two algorithms (" +
                        std::to_string(alg) + " and " + std::to_string(k.algorithm) +
                        "); an online zone signs with one: " + k.private_path);
    }
  }
  const bool split =
      std::any_of(z->keys_.begin(), z->keys_.end(), [](const SigningKey& k) { return k.sep(); }) &&
      std::any_of(z->keys_.begin(), z->keys_.end(), [](const SigningKey& k) { return !k.sep(); });
  for (std::size_t i = 0; i < z->keys_.size(); ++i) {
    // Safety: an index over 255 would wrap, but a list then holds more
    // than kMaxSignersPerRRset keys and load fails below, unused.
    const auto index = static_cast<std::uint8_t>(i);
    if (!split || z->keys_[i].sep()) z->apex_keyset_.push_back(index);
    if (!split || !z->keys_[i].sep()) z->others_.push_back(index);
  }
  if (z->apex_keyset_.size() > kMaxSignersPerRRset || z->others_.size() > kMaxSignersPerRRset) {
    return zone_error(origin.to_text() + " has " + std::to_string(z->keys_.size()) +
                      " keys, and more than " + std::to_string(kMaxSignersPerRRset) +
                      " would sign one RRset; keep at most two CSKs, or two KSKs and two ZSKs");
  }
  return std::shared_ptr<const ZoneKeys>(std::move(z));
}

}  // namespace herald::dns::signing
