#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "core/metrics/process.hpp"
#include "core/metrics/registry.hpp"

namespace herald::metrics {
namespace {

using ::testing::HasSubstr;

TEST(Metrics, RendersPrometheusText) {
  Registry r;
  r.counter("req_total", "Requests", {{"code", "2xx"}}).inc(3);
  r.counter("req_total", "Requests", {{"code", "5xx"}}).inc();
  r.gauge("open", "Open \"things\"\nnow").set(-2);
  auto& h = r.histogram("lat_seconds", "Latency", {0.1, 1});
  h.observe(0.05);
  h.observe(0.5);
  h.observe(5);
  r.callback("cb", "Callback", [] { return 1.5; });
  EXPECT_EQ(r.render(),
            "# HELP req_total Requests\n"
            "# TYPE req_total counter\n"
            "req_total{code=\"2xx\"} 3\n"
            "req_total{code=\"5xx\"} 1\n"
            "# HELP open Open \"things\"\\nnow\n"
            "# TYPE open gauge\n"
            "open -2\n"
            "# HELP lat_seconds Latency\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{le=\"0.1\"} 1\n"
            "lat_seconds_bucket{le=\"1\"} 2\n"
            "lat_seconds_bucket{le=\"+Inf\"} 3\n"
            "lat_seconds_sum 5.55\n"
            "lat_seconds_count 3\n"
            "# HELP cb Callback\n"
            "# TYPE cb gauge\n"
            "cb 1.5\n");
}

TEST(Metrics, SameSeriesIsSameObjectAndLabelValuesAreEscaped) {
  Registry r;
  Counter& a = r.counter("c", "h", {{"k", "a\"b\\c"}});
  Counter& b = r.counter("c", "h", {{"k", "a\"b\\c"}});
  EXPECT_EQ(&a, &b);
  a.inc();
  EXPECT_THAT(r.render(), HasSubstr("c{k=\"a\\\"b\\\\c\"} 1\n"));
}

TEST(Metrics, MisuseThrows) {
  Registry r;
  r.counter("x", "h");
  EXPECT_THROW(r.gauge("x", "h"), std::logic_error);
  EXPECT_THROW(r.counter("bad name", "h"), std::logic_error);
  EXPECT_THROW(r.counter("y", "h", {{"le", "1"}}), std::logic_error);
  EXPECT_THROW(Histogram({2, 1}), std::logic_error);
}

TEST(Metrics, ConcurrentUpdatesAreNotLost) {
  Registry r;
  Counter& c = r.counter("n", "h");
  Histogram& h = r.histogram("h", "h", {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        h.observe(0.5);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000u);
  EXPECT_EQ(h.count(), 40000u);
  EXPECT_DOUBLE_EQ(h.sum(), 20000);
}

TEST(Metrics, ProcessStatsAreSane) {
  auto s = read_process_stats();
  ASSERT_TRUE(s);
  EXPECT_GT(s->resident_bytes, 0u);
  EXPECT_GE(s->threads, 1u);
  EXPECT_GT(s->start_time_seconds, 1.6e9);  // after 2020
  Registry r;
  register_process_metrics(r);
  std::string text = r.render();
  for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes",
                           "process_open_fds", "process_max_fds", "process_start_time_seconds"}) {
    EXPECT_THAT(text, HasSubstr(std::string("# TYPE ") + name)) << name;
  }
}

}  // namespace
}  // namespace herald::metrics
