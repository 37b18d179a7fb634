// The zone set a [dns] section describes (dns/server/zone_set_loader.hpp):
// every refusal it makes (a malformed dns.zones entry, a discovery zone that
// clashes with a file or is no domain name, a keys directory gone), what it
// keeps when it refuses, the discovery zone's serial, and which zones it
// lists for NOTIFY. Real zone files in a temporary directory.
#include "dns/server/zone_set_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dns/notify.hpp"
#include "dns/server/zone_list.hpp"
#include "support/temp_dir.hpp"

namespace herald::dns {
namespace {

using herald::test::TempDir;
namespace fs = std::filesystem;

void write_zone(const fs::path& path, const std::string& origin, std::uint32_t serial) {
  std::ofstream(path) << "$ORIGIN " << origin << "\n$TTL 300\n"
                      << "@ IN SOA ns1 hostmaster " << serial << " 7200 3600 1209600 300\n"
                      << "@ IN NS ns1\nns1 IN A 192.0.2.53\n";
}

DiscoveryZone discovery(std::string origin) {
  return {.origin = std::move(origin),
          .ns_host = "127.0.0.1",
          .node_name = "node1",
          .gateway = {"127.0.0.1", 8080}};
}

const Zone* zone_named(const ZoneSetUpdate& u, const std::string& origin) {
  return u.db->find_exact(Name::from_text(origin).value());
}

std::vector<std::string> origins(const std::vector<std::shared_ptr<const Zone>>& zones) {
  std::vector<std::string> out;
  for (const auto& z : zones) out.push_back(z->origin().to_text());
  return out;
}

TEST(ZoneList, RefusesEntriesWithoutAnOriginOrAPathAndKeepsTheOthers) {
  std::vector<ZoneError> errors;
  auto sources = parse_zone_list(
      "a.example=/z/a, bogus, =/z/none,  b.example. = /z/b , a..b=/z/w, c.example=", errors);
  ASSERT_EQ(sources.size(), 2U);
  EXPECT_EQ(sources[0].origin.to_text(), "a.example.");
  EXPECT_EQ(sources[0].path, "/z/a");
  EXPECT_EQ(sources[1].origin.to_text(), "b.example.");
  EXPECT_EQ(sources[1].path, "/z/b");
  std::vector<std::string> messages;
  for (const auto& e : errors) {
    EXPECT_EQ(e.file, "dns.zones");
    messages.push_back(e.message);
  }
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "expected origin=path, got 'bogus'",
                          "expected origin=path, got '=/z/none'",
                          "expected origin=path, got 'a..b=/z/w'",
                          "expected origin=path, got 'c.example='",
                      }));
}

TEST(ZoneSetLoader, AMalformedListEntryCostsOnlyItself) {
  TempDir dir("herald-zoneset");
  write_zone(dir.path / "a.zone", "a.example.", 1);
  Settings s;
  s.zones = "a.example=" + (dir.path / "a.zone").string() + ", nonsense";
  ZoneSetLoader loader(s, discovery(""));
  ZoneSetUpdate u = loader.load_files();
  EXPECT_EQ(u.db->size(), 1U);
  ASSERT_EQ(u.errors.size(), 1U);
  EXPECT_EQ(u.errors[0].to_string().find("dns.zones"), 0U) << u.errors[0].to_string();
}

TEST(ZoneSetLoader, AZoneFileWinsOverTheDiscoveryZoneOfItsOrigin) {
  TempDir dir("herald-zoneset");
  write_zone(dir.path / "h.zone", "herald.internal.", 77);
  Settings s;
  s.zones = "Herald.Internal=" + (dir.path / "h.zone").string();
  ZoneSetLoader loader(s, discovery("herald.internal"));
  ZoneSetUpdate u = loader.load_files();
  ASSERT_EQ(u.db->size(), 1U);
  EXPECT_EQ(soa_serial(*zone_named(u, "herald.internal.")), 77U);  // the file's
  EXPECT_EQ(u.failed, 0U);
  ASSERT_EQ(u.errors.size(), 1U);
  EXPECT_EQ(u.errors[0].file, "dns.discovery_zone");
  EXPECT_EQ(u.errors[0].message, "herald.internal. is also a zone file's origin; the file wins");
}

TEST(ZoneSetLoader, ADiscoveryZoneThatIsNoDomainNameIsRefusedAndCounted) {
  ZoneSetLoader loader(Settings{}, discovery("a..b"));
  ZoneSetUpdate u = loader.load_files();
  EXPECT_EQ(u.db->size(), 0U);
  EXPECT_EQ(u.failed, 1U);
  ASSERT_EQ(u.errors.size(), 1U);
  EXPECT_EQ(u.errors[0].file, "dns.discovery_zone");
  EXPECT_EQ(u.errors[0].message, "not a domain name");
}

TEST(ZoneSetLoader, TheDiscoverySerialMovesForwardAndKeepsUpWithTheClock) {
  std::uint32_t now = 1'000'000;
  ZoneSetLoader loader(Settings{}, discovery("herald.internal."), [&] { return now; });
  auto serial = [](const ZoneSetUpdate& u) {
    return soa_serial(*zone_named(u, "herald.internal."));
  };
  EXPECT_EQ(serial(loader.load_files()), 1'000'000U);
  // Two rebuilds in one second still differ, so a secondary sees both.
  EXPECT_EQ(serial(loader.set_nodes({{"n1", "127.0.0.1", 8080, 3}})), 1'000'001U);
  EXPECT_EQ(serial(loader.set_nodes({})), 1'000'002U);
  now = 2'000'000;
  EXPECT_EQ(serial(loader.load_files()), 2'000'000U);
  now = 5;  // a clock set back never sends the serial back
  EXPECT_EQ(serial(loader.load_files()), 2'000'001U);
}

TEST(ZoneSetLoader, ListsForNotifyTheZonesNewOrReSerialedOnly) {
  TempDir dir("herald-zoneset");
  write_zone(dir.path / "a.example.zone", "a.example.", 1);
  write_zone(dir.path / "b.example.zone", "b.example.", 1);
  Settings s;
  s.zones_dir = dir.path.string();
  ZoneSetLoader loader(s, discovery(""));
  EXPECT_EQ(origins(loader.load_files().changed),
            (std::vector<std::string>{"a.example.", "b.example."}));
  EXPECT_TRUE(loader.load_files().changed.empty());
  write_zone(dir.path / "b.example.zone", "b.example.", 2);
  EXPECT_EQ(origins(loader.load_files().changed), (std::vector<std::string>{"b.example."}));
  // Gone and back: new again.
  fs::rename(dir.path / "a.example.zone", dir.path / "a.example.off");
  EXPECT_TRUE(loader.load_files().changed.empty());
  fs::rename(dir.path / "a.example.off", dir.path / "a.example.zone");
  EXPECT_EQ(origins(loader.load_files().changed), (std::vector<std::string>{"a.example."}));
}

TEST(ZoneSetLoader, AKeysDirectoryGoneReloadsNothingAndKeepsTheZonesBefore) {
  TempDir dir("herald-zoneset");
  const fs::path keys = dir.path / "keys";
  fs::create_directory(keys);
  write_zone(dir.path / "a.zone", "a.example.", 1);
  Settings s;
  s.zones = "a.example=" + (dir.path / "a.zone").string();
  s.keys_dir = keys.string();
  ZoneSetLoader loader(s, discovery(""));
  ZoneSetUpdate first = loader.load_files();
  ASSERT_EQ(first.db->size(), 1U);
  EXPECT_TRUE(first.errors.empty()) << first.errors[0].to_string();

  fs::remove(keys);
  write_zone(dir.path / "a.zone", "a.example.", 2);  // not read: keys unknown
  ZoneSetUpdate refused = loader.load_files();
  ASSERT_EQ(refused.db->size(), 1U);
  EXPECT_EQ(soa_serial(*zone_named(refused, "a.example.")), 1U);
  ASSERT_FALSE(refused.errors.empty());
  EXPECT_NE(refused.errors.back().message.find("no zone reloaded"), std::string::npos)
      << refused.errors.back().to_string();
  EXPECT_EQ(refused.errors.back().file, keys.string());
}

TEST(ZoneSetLoader, ReportsKeysOfZonesNotServed) {
  TempDir dir("herald-zoneset");
  for (const auto& f : fs::directory_iterator(HERALD_DNS_TEST_DATA "/online/keys")) {
    if (f.path().filename().string().starts_with("Konline.example.")) {
      fs::copy_file(f.path(), dir.path / f.path().filename());
    }
  }
  Settings s;
  s.keys_dir = dir.path.string();
  ZoneSetLoader loader(s, discovery(""));
  ZoneSetUpdate u = loader.load_files();
  ASSERT_EQ(u.unused_keys.size(), 1U);
  EXPECT_EQ(u.unused_keys[0].to_text(), "online.example.");
  EXPECT_EQ(u.db->size(), 0U);
}

}  // namespace
}  // namespace herald::dns
