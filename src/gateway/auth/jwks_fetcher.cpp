#include "gateway/auth/jwks_fetcher.hpp"

#include <curl/curl.h>

#include <stdexcept>
#include <vector>

#include "core/log.hpp"
#include "core/result.hpp"
#include "gateway/auth/jwks.hpp"

namespace herald::gateway::auth {
namespace {

struct Body {
  std::string text;
  std::size_t max;
  bool too_large = false;
};

// libcurl's write callback: appends, or stops the transfer past the bound.
std::size_t append(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t n = size * count;
  if (body->text.size() + n > body->max) {
    body->too_large = true;
    return 0;  // anything but n aborts the transfer
  }
  body->text.append(data, n);
  return n;
}

// The body of a 200 answer to GET `url`, or why not.
Result<std::string, std::string> http_get(const JwksFetcher::Settings& s) {
  static std::once_flag global;
  std::call_once(global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Fail{std::string("libcurl could not start a transfer")};
  Body body{{}, s.max_bytes};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, s.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(s.timeout.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // a thread of a server: no SIGALRM
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "heraldd/" HERALD_VERSION);
  if (!s.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, s.ca_file.c_str());
  const CURLcode rc = curl_easy_perform(c);
  if (body.too_large) {
    return Fail{"the answer is over " + std::to_string(s.max_bytes) + " bytes"};
  }
  if (rc != CURLE_OK) return Fail{std::string(curl_easy_strerror(rc))};
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return Fail{"HTTP status " + std::to_string(status) + ", not 200"};
  return std::move(body.text);
}

}  // namespace

JwksFetcher::JwksFetcher(Settings settings, Install install)
    : settings_(std::move(settings)), install_(std::move(install)) {
  if (!settings_.url.starts_with("http://") && !settings_.url.starts_with("https://")) {
    throw std::invalid_argument("'" + settings_.url + "' is not an http:// or https:// URL");
  }
}

JwksFetcher::~JwksFetcher() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> JwksFetcher::fetch() {
  {
    std::lock_guard lock(mu_);
    last_fetch_ = std::chrono::steady_clock::now();
  }
  auto got = http_get(settings_);
  if (!got) return "GET " + settings_.url + ": " + got.error();
  std::vector<std::string> skipped;
  try {
    auto set = std::make_shared<const Jwks>(Jwks::parse(*got, &skipped));
    for (const std::string& why : skipped)
      log::warn("jwks key left out", {{"url", settings_.url}, {"key", why}});
    log::info("jwks fetched", {{"url", settings_.url}, {"keys", set->size()}});
    install_(std::move(set));
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    return settings_.url + ": " + e.what();
  }
}

void JwksFetcher::start() {
  std::lock_guard lock(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

void JwksFetcher::wanted() {
  {
    std::lock_guard lock(mu_);
    if (wanted_) return;
    wanted_ = true;
  }
  cv_.notify_all();
}

void JwksFetcher::run() {
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(mu_);
  Clock::time_point next = last_fetch_ + settings_.refresh;
  while (!stopping_) {
    cv_.wait_until(lock, next, [this] { return stopping_ || wanted_; });
    if (stopping_) break;
    // Wanted early: not before kMinWantedGap after the last fetch.
    const Clock::time_point earliest = last_fetch_ + kMinWantedGap;
    if (wanted_ && Clock::now() < earliest && Clock::now() < next) {
      cv_.wait_until(lock, earliest, [this] { return stopping_; });
      if (stopping_) break;
    }
    wanted_ = false;
    lock.unlock();
    const std::optional<std::string> failed = fetch();
    if (failed) log::warn("jwks not refreshed: the keys in use stay", {{"error", *failed}});
    lock.lock();
    next =
        last_fetch_ + (failed ? std::min<std::chrono::milliseconds>(kRetryAfter, settings_.refresh)
                              : settings_.refresh);
  }
}

}  // namespace herald::gateway::auth
