// heraldd's command line: the files in tests/data/config, the environment,
// flags, and their precedence, through the same parse_cli() main() uses.
#include "cli.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <vector>

#include "core/memory/huge_pages.hpp"
#include "dns_service.hpp"

namespace herald::heraldd {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

const std::string kData = HERALD_TEST_DATA "/config/";

struct Env {
  std::vector<std::string> entries;
  std::vector<char*> ptrs;
  explicit Env(std::vector<std::string> e) : entries(std::move(e)) {
    for (auto& s : entries) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  char** get() { return ptrs.data(); }
};

CliResult parse(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "heraldd");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  Env e(std::move(env));
  return parse_cli(static_cast<int>(argv.size()), argv.data(), e.get());
}

TEST(HeralddCli, DefaultsNeedNothing) {
  CliResult r = parse({});
  ASSERT_TRUE(r.settings) << r.err;
  EXPECT_EQ(r.settings->gateway.listen.to_string(), "127.0.0.1:8080");
  EXPECT_EQ(r.settings->gateway.threads, 0u);
  EXPECT_GE(r.settings->gateway.shard_count(), 1u);
  EXPECT_EQ(r.settings->log.level, "info");
}

TEST(HeralddCli, GoodFile) {
  CliResult r = parse({"--config", kData + "good.toml"});
  ASSERT_TRUE(r.settings) << r.err;
  const auto& g = r.settings->gateway;
  EXPECT_EQ(g.listen.to_string(), "127.0.0.1:9001");
  EXPECT_EQ(g.threads, 3u);
  EXPECT_EQ(g.max_connections, 500u);
  EXPECT_EQ(g.shutdown_timeout, milliseconds(2000));
  EXPECT_EQ(g.http.max_header_bytes, 16384u);
  EXPECT_EQ(g.http.max_body_bytes, 65536u);
  EXPECT_EQ(g.http.idle_timeout, milliseconds(90'000));
  EXPECT_EQ(r.settings->log.level, "debug");
  EXPECT_EQ(r.settings->log.format, "json");
}

struct BadFile {
  const char* file;
  const char* expected;  // a substring of stderr
};

class HeralddCliBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(HeralddCliBadFile, ExitsTwoNamingFileLineAndKey) {
  CliResult r = parse({"--config", kData + GetParam().file});
  EXPECT_FALSE(r.settings);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(GetParam().expected));
  EXPECT_THAT(r.err, HasSubstr("nothing started"));
}

INSTANTIATE_TEST_SUITE_P(
    Files, HeralddCliBadFile,
    ::testing::Values(
        BadFile{"syntax_error.toml", "syntax_error.toml:3:"},
        BadFile{"unknown_key.toml",
                "unknown_key.toml:3:1: server.thread: unknown key; did you mean 'server.threads'?"},
        BadFile{"unknown_section.toml", "unknown_section.toml:1:2: sever: unknown section"},
        BadFile{"wrong_type.toml",
                "wrong_type.toml:3:1: server.threads: expected an integer in 0..256, got \"two\""},
        BadFile{"out_of_range.toml",
                "out_of_range.toml:5:1: server.threads: expected an integer in 0..256, got 9999"},
        BadFile{"does_not_exist.toml", "does_not_exist.toml: cannot read the config file"}),
    [](const auto& param_info) {
      std::string n = param_info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(HeralddCli, PrecedenceIsDefaultThenFileThenEnvThenFlag) {
  // File says threads=3, listen 9001; env overrides threads; flag overrides listen.
  CliResult r = parse({"--config", kData + "good.toml", "--server.listen", "127.0.0.1:9003"},
                      {"HERALD_SERVER_THREADS=4", "HERALD_SERVER_LISTEN=127.0.0.1:9002"});
  ASSERT_TRUE(r.settings) << r.err;
  EXPECT_EQ(r.settings->gateway.threads, 4u);
  EXPECT_EQ(r.settings->gateway.listen.to_string(), "127.0.0.1:9003");
  EXPECT_EQ(r.settings->gateway.max_connections, 500u);  // from the file, untouched
}

TEST(HeralddCli, ConfigPathFromEnvironment) {
  CliResult r = parse({}, {"HERALD_CONFIG=" + kData + "good.toml"});
  ASSERT_TRUE(r.settings) << r.err;
  EXPECT_EQ(r.settings->gateway.threads, 3u);
  EXPECT_EQ(r.config_file, kData + "good.toml");
}

TEST(HeralddCli, FlagWithEqualsAndLastOneWins) {
  CliResult r = parse({"--server.threads=2", "--server.threads", "5"});
  ASSERT_TRUE(r.settings) << r.err;
  EXPECT_EQ(r.settings->gateway.threads, 5u);
}

TEST(HeralddCli, BadFlagValueExitsTwo) {
  CliResult r = parse({"--server.shutdown_timeout", "10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("flag --server.shutdown_timeout: server.shutdown_timeout: expected "
                               "a duration in 0s..10m written with a unit"));
}

TEST(HeralddCli, UnknownFlagExitsTwoWithHint) {
  CliResult r = parse({"--server.lisen", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--server.lisen"));
  EXPECT_THAT(r.err, HasSubstr("heraldd --help"));
}

TEST(HeralddCli, AllErrorsReportedAtOnce) {
  CliResult r = parse({"--config", kData + "wrong_type.toml", "--log.level", "loud"},
                      {"HERALD_HTTP_IDLE_TIMEOUT=forever"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("server.threads"));
  EXPECT_THAT(r.err, HasSubstr("environment HERALD_HTTP_IDLE_TIMEOUT"));
  EXPECT_THAT(r.err, HasSubstr("flag --log.level"));
  EXPECT_THAT(r.err, HasSubstr("3 configuration errors"));
}

TEST(HeralddCli, UnknownEnvironmentIsOnlyAWarning) {
  CliResult r = parse({}, {"HERALD_SERVER_THREDS=2"});
  ASSERT_TRUE(r.settings);
  EXPECT_EQ(r.unknown_env, std::vector<std::string>{"HERALD_SERVER_THREDS"});
}

TEST(HeralddCli, HelpListsEveryKeyWithEnvName) {
  CliResult r = parse({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.settings);
  for (const char* s : {"--server.listen", "HERALD_SERVER_LISTEN", "--http.max_body_bytes",
                        "--log.format", "--config", "--print-config"}) {
    EXPECT_THAT(r.out, HasSubstr(s));
  }
}

TEST(HeralddCli, VersionAndPrintAndCheck) {
  EXPECT_THAT(parse({"--version"}).out, HasSubstr("heraldd " HERALD_VERSION));
  CliResult printed = parse({"--print-config", "--server.threads", "7"});
  EXPECT_THAT(printed.out, HasSubstr("[server]\n"));
  EXPECT_THAT(printed.out, HasSubstr("threads = 7\n"));
  EXPECT_THAT(printed.out, HasSubstr("idle_timeout = \"30s\"\n"));
  CliResult checked = parse({"--check-config", "--config", kData + "good.toml"});
  EXPECT_EQ(checked.exit_code, 0);
  EXPECT_FALSE(checked.settings);
}

}  // namespace
}  // namespace herald::heraldd

namespace herald::heraldd {
namespace {

// docs/configuration.md must list every key heraldd accepts.
TEST(HeralddCli, EveryKeyIsDocumented) {
  std::ifstream in(HERALD_SOURCE_DIR "/docs/configuration.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  Settings settings;
  config::Schema schema;
  register_settings(schema, settings);
  for (const config::Field& f : schema.fields()) {
    std::string row = "| `" + f.key + "` | `" + f.show() + "` |";
    EXPECT_NE(doc.str().find(row), std::string::npos)
        << "expected the row '" << row << "...': " << f.key
        << " is missing from docs/configuration.md, or its default there is stale";
  }
}

// dns.huge_pages: a heap grown past a few huge pages is backed by them after
// back_heap_with_huge_pages(), where the kernel offers transparent huge pages
// (madvise or always); where it does not, the call says why.
// gcc says it runs a sanitizer with a macro, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HERALD_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HERALD_TEST_SANITIZED 1
#endif
#endif

TEST(HeralddDns, HeapBackedByHugePages) {
#ifdef HERALD_TEST_SANITIZED
  // The sanitizers' allocators serve malloc from their own mappings, not
  // from the heap (brk) this advises.
  GTEST_SKIP() << "under a sanitizer, malloc does not use the [heap] mapping";
#endif
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode((std::istreambuf_iterator<char>(thp)), std::istreambuf_iterator<char>());
  // Small blocks come from the heap (brk), as zone data does; 32 MiB of them.
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 32 * 1024; ++i) {
    blocks.emplace_back(new char[1000]);
    std::fill_n(blocks.back().get(), 1000, static_cast<char>(i));
  }
  memory::HugePages hp = memory::back_heap_with_huge_pages();
  if (mode.empty() || mode.find("[never]") != std::string::npos) {
    EXPECT_EQ(hp.kib, 0u);
    GTEST_SKIP() << "transparent huge pages are off here: " << mode << " (" << hp.error << ")";
  }
  EXPECT_GE(hp.kib, 2048u) << hp.error;
  // The data is unchanged (the advice changes how memory is backed only).
  for (int i = 0; i < 32 * 1024; i += 997) {
    EXPECT_EQ(blocks[static_cast<std::size_t>(i)][999], static_cast<char>(i));
  }
}

}  // namespace
}  // namespace herald::heraldd
