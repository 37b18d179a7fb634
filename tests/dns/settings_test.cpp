// heraldd's [dns] keys turned into the server's options
// (dns/server/settings.hpp): each bad value is refused with the key named.
#include "dns/server/settings.hpp"

#include <gtest/gtest.h>

namespace herald::dns {
namespace {

TEST(DnsSettings, BecomeTheServersOptions) {
  Settings s;
  s.listen = {"::1", 53};
  s.threads = 3;
  s.max_udp_payload = 1400;
  s.rrl_rate = 50;
  s.nsid = "ns1";
  s.cookie_secret = "00112233445566778899AaBbCcDdEeFf";
  auto o = server_options(s);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->host, "::1");
  EXPECT_EQ(o->port, 53);
  EXPECT_EQ(o->threads, 3u);
  EXPECT_EQ(o->responder.max_udp_payload, 1400);
  EXPECT_EQ(o->rrl_rate, 50u);
  EXPECT_EQ(std::string(o->responder.nsid.begin(), o->responder.nsid.end()), "ns1");
  EXPECT_EQ(o->responder.cookie_secret[0], 0x00);
  EXPECT_EQ(o->responder.cookie_secret[1], 0x11);
  EXPECT_EQ(o->responder.cookie_secret[15], 0xff);
}

TEST(DnsSettings, SignatureSettingsBecomeTheSignersWindowInSeconds) {
  Settings s;
  s.signature_validity = std::chrono::hours(48);
  s.signature_refresh = std::chrono::hours(12);
  s.signature_inception_offset = std::chrono::minutes(30);
  s.signature_cache_entries = 1000;
  auto o = server_options(s);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->responder.signatures.validity, 48u * 3600);
  EXPECT_EQ(o->responder.signatures.refresh, 12u * 3600);
  EXPECT_EQ(o->responder.signatures.inception_offset, 1800u);
  EXPECT_EQ(o->responder.signatures.cache_entries, 1000u);
}

TEST(DnsSettings, ARefreshNotBelowTheValidityIsRefusedNamingBothKeys) {
  Settings s;
  s.signature_validity = std::chrono::hours(24);
  s.signature_refresh = std::chrono::hours(24);
  auto o = server_options(s);
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().find("dns.signature_refresh must be less than dns.signature_validity"),
            std::string::npos)
      << o.error();
}

TEST(DnsSettings, ABadCookieSecretIsRefusedNamingTheKey) {
  for (const char* bad :
       {"0011", "00112233445566778899aabbccddeeffaa", "0011223344556677889900aabbccddgg",
        "00 11223344556677889900aabbccddee"}) {
    Settings s;
    s.cookie_secret = bad;
    auto o = server_options(s);
    ASSERT_FALSE(o) << bad;
    EXPECT_EQ(o.error(), "dns.cookie_secret: expected 32 hex digits") << bad;
  }
}

TEST(DnsSettings, AnEmptyCookieSecretIsDrawnAtRandom) {
  const Settings s;
  auto a = server_options(s);
  auto b = server_options(s);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->responder.cookie_secret, b->responder.cookie_secret);
}

TEST(DnsSettings, BadTransferAclAndNotifyTargetsNameTheirKey) {
  Settings s;
  s.transfer_allow = "192.0.2.0/33";
  auto o = server_options(s);
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().rfind("dns.transfer_allow: ", 0), 0u) << o.error();

  Settings t;
  t.notify = "192.0.2.7:53, secondary.example:53";
  auto n = notify_targets(t);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error(), "dns.notify: 'secondary.example:53' is not an address:port");
  t.notify = "192.0.2.7:53, [2001:db8::7]:5353";
  n = notify_targets(t);
  ASSERT_TRUE(n) << n.error();
  ASSERT_EQ(n->size(), 2u);
  EXPECT_EQ((*n)[1].port(), 5353);
}

}  // namespace
}  // namespace herald::dns
