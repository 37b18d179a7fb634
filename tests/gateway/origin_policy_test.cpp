// The origin policy (gateway/http/origin_policy.hpp) rule by rule, with the
// headers a browser sends: the attacks (another site's page, DNS
// rebinding), the pages that must keep working (the server's own web app, a
// local dev server in dev mode, a listed origin), and the configuration
// errors that stop start-up.
#include "gateway/http/origin_policy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace herald::gateway {
namespace {

std::string verdict(const http::OriginPolicy& p, std::string_view origin, std::string_view host) {
  auto r = p.refusal(origin, host);
  return r ? std::string(r->code) : "allowed";
}

TEST(OriginPolicy, NoOriginIsANonBrowserClientAndPasses) {
  const http::OriginPolicy secure("", false);
  EXPECT_EQ(verdict(secure, "", "chat.example.com"), "allowed");
  EXPECT_EQ(verdict(secure, "", ""), "allowed");  // HTTP/1.0 without Host
}

TEST(OriginPolicy, OwnOriginPassesAnotherIsRefused) {
  const http::OriginPolicy secure("", false);
  EXPECT_EQ(verdict(secure, "https://chat.example.com", "chat.example.com"), "allowed");
  EXPECT_EQ(verdict(secure, "http://chat.example.com:8080", "chat.example.com:8080"), "allowed");
  // Case and default ports as browsers and proxies write them.
  EXPECT_EQ(verdict(secure, "https://chat.example.com", "Chat.Example.COM:443"), "allowed");
  EXPECT_EQ(verdict(secure, "http://chat.example.com", "chat.example.com:80"), "allowed");
  EXPECT_EQ(verdict(secure, "http://evil.example", "chat.example.com"), "origin_not_allowed");
  // Same host, another port or scheme: another origin (RFC 6454).
  EXPECT_EQ(verdict(secure, "http://chat.example.com:9000", "chat.example.com:8080"),
            "origin_not_allowed");
  EXPECT_EQ(verdict(secure, "https://chat.example.com", "chat.example.com:80"),
            "origin_not_allowed");
  // Without dev mode a loopback page is just another origin.
  EXPECT_EQ(verdict(secure, "http://localhost:3000", "127.0.0.1:8080"), "origin_not_allowed");
  // Sandboxed frames and file: pages send "null"; garbage is no origin.
  EXPECT_EQ(verdict(secure, "null", "chat.example.com"), "origin_not_allowed");
  EXPECT_EQ(verdict(secure, "chat.example.com", "chat.example.com"), "origin_not_allowed");
  EXPECT_EQ(verdict(secure, "http://chat.example.com/path", "chat.example.com"),
            "origin_not_allowed");
}

TEST(OriginPolicy, ListedOriginsAndStar) {
  const http::OriginPolicy listed("https://app.example.com, HTTP://Dev.Example.com:8000/", false);
  EXPECT_EQ(verdict(listed, "https://app.example.com", "api.example.com"), "allowed");
  EXPECT_EQ(verdict(listed, "https://app.example.com:443", "api.example.com"), "allowed");
  EXPECT_EQ(verdict(listed, "http://dev.example.com:8000", "api.example.com"), "allowed");
  EXPECT_EQ(verdict(listed, "http://dev.example.com", "api.example.com"), "origin_not_allowed");
  EXPECT_EQ(verdict(listed, "http://app.example.com", "api.example.com"), "origin_not_allowed");
  const http::OriginPolicy any("*", false);
  EXPECT_EQ(verdict(any, "http://anything.example", "api.example.com"), "allowed");
  // In dev mode "*" admits any page, but not requests addressed elsewhere.
  const http::OriginPolicy dev_any("*", true);
  EXPECT_EQ(verdict(dev_any, "http://anything.example", "127.0.0.1:8080"), "allowed");
  EXPECT_EQ(verdict(dev_any, "", "evil.example:8080"), "host_not_allowed");
}

TEST(OriginPolicy, DevModeServesLoopbackOnly) {
  const http::OriginPolicy dev("", true);
  // The web app on 127.0.0.1, and a local dev server on another port.
  EXPECT_EQ(verdict(dev, "http://127.0.0.1:8080", "127.0.0.1:8080"), "allowed");
  EXPECT_EQ(verdict(dev, "http://localhost:5173", "localhost:8080"), "allowed");
  EXPECT_EQ(verdict(dev, "http://[::1]:3000", "[::1]:8080"), "allowed");
  EXPECT_EQ(verdict(dev, "", "app.localhost:8080"), "allowed");
  // Another site's page: the cross-site WebSocket hijack.
  EXPECT_EQ(verdict(dev, "http://evil.example", "127.0.0.1:8080"), "origin_not_allowed");
  // DNS rebinding: evil.example now resolves to 127.0.0.1, so the page is
  // same-origin with the server; its Host gives it away, Origin or not.
  EXPECT_EQ(verdict(dev, "http://evil.example:8080", "evil.example:8080"), "host_not_allowed");
  EXPECT_EQ(verdict(dev, "", "evil.example:8080"), "host_not_allowed");
  // Names that only look local.
  EXPECT_EQ(verdict(dev, "", "localhost.evil.example:8080"), "host_not_allowed");
  EXPECT_EQ(verdict(dev, "", "127.0.0.1.evil.example:8080"), "host_not_allowed");
  EXPECT_EQ(verdict(dev, "http://127.0.0.1.evil.example", "127.0.0.1:8080"), "origin_not_allowed");
  // A host with a colon but no brackets is no host.
  EXPECT_EQ(verdict(dev, "", "a:b:8080"), "host_not_allowed");
  // A listed origin's host is served in dev mode too.
  const http::OriginPolicy dev_listed("http://devbox.lan:8080", true);
  EXPECT_EQ(verdict(dev_listed, "http://devbox.lan:8080", "devbox.lan:8080"), "allowed");
  EXPECT_EQ(verdict(dev_listed, "", "other.lan:8080"), "host_not_allowed");
}

TEST(OriginPolicy, TheRefusalNamesTheSetting) {
  const http::OriginPolicy dev("", true);
  auto r = dev.refusal("http://evil.example", "127.0.0.1:8080");
  ASSERT_TRUE(r);
  EXPECT_NE(r->message.find("server.allowed_origins"), std::string::npos) << r->message;
  EXPECT_NE(r->message.find("http://evil.example"), std::string::npos) << r->message;
  r = dev.refusal("", "evil.example");
  ASSERT_TRUE(r);
  EXPECT_NE(r->message.find("auth.dev_mode"), std::string::npos) << r->message;
}

TEST(OriginPolicy, AnEntryThatIsNoOriginStopsStartUp) {
  for (const char* bad : {"chat.example.com", "https://", "https://x.example/app",
                          "https://x.example:0", "https://x.example:99999", "null"}) {
    try {
      http::OriginPolicy p(bad, false);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("server.allowed_origins"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(OriginPolicy, LoopbackHosts) {
  for (const char* h :
       {"localhost", "LOCALHOST", "app.localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"})
    EXPECT_TRUE(http::is_loopback_host(h)) << h;
  // Names that only look local are whatever DNS makes them.
  for (const char* h : {"localhost.example", "128.0.0.1", "0.0.0.0", "example.com", "",
                        "127.0.0.1.evil.example", "127.evil", "::2"})
    EXPECT_FALSE(http::is_loopback_host(h)) << h;
}

}  // namespace
}  // namespace herald::gateway
