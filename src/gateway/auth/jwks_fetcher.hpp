// A JWK set kept fresh from a URL (auth.jwks_url), as Centrifugo reads its
// jwks_public_endpoint. Fetched once before the server serves, so the
// first tokens find their keys; then on a thread of its own every
// auth.jwks_refresh, and soon after a token names a kid the set lacks: a
// provider that rotates keys publishes the new one before it signs with
// it, so an unknown kid means "fetch again", at most once per
// kMinWantedGap whatever the number of such tokens (a stream of made-up
// kids must not turn into a stream of requests to the provider).
//
// Each set fetched replaces the verifier's whole (TokenVerifier::set_jwks).
// A fetch that fails, or a set that does not parse, keeps the set in use,
// is logged with what and where, and is tried again after kRetryAfter
// rather than a whole refresh period: a provider's outage must not leave
// the keys old for an hour after it ends.
//
// libcurl does the HTTP(S): TLS verified against the system's CAs (or
// auth.jwks_ca_file), redirects followed (at most 3, to http or https
// only), one timeout for the whole exchange, and a bound on the body.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace herald::gateway::auth {

class Jwks;

class JwksFetcher {
 public:
  struct Settings {
    std::string url;      // http:// or https://
    std::string ca_file;  // PEM CAs the server's certificate must chain to; empty: the system's
    std::chrono::milliseconds refresh{3'600'000};
    std::chrono::milliseconds timeout{5000};
    std::size_t max_bytes = 1 << 20;
  };
  static constexpr std::chrono::seconds kMinWantedGap{5};
  static constexpr std::chrono::seconds kRetryAfter{30};

  using Install = std::function<void(std::shared_ptr<const Jwks>)>;

  // Throws std::invalid_argument when the URL is not http(s)://.
  JwksFetcher(Settings settings, Install install);
  ~JwksFetcher();
  JwksFetcher(const JwksFetcher&) = delete;
  JwksFetcher& operator=(const JwksFetcher&) = delete;

  // One fetch now, on the caller's thread, installed when it parses: why
  // not otherwise.
  std::optional<std::string> fetch();
  // Starts the refresh thread (once).
  void start();
  // A token named a kid the set lacks: fetch again soon. Any thread.
  void wanted();

 private:
  void run();

  const Settings settings_;
  Install install_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool wanted_ = false;
  std::chrono::steady_clock::time_point last_fetch_{};
  std::thread thread_;
};

}  // namespace herald::gateway::auth
