// Metrics in the Prometheus text exposition format (version 0.0.4).
//
// Counters, gauges and histograms are plain relaxed atomics: updating one is
// a single atomic add, safe from any shard, never a lock. The registry's mutex
// guards only registration and rendering (a scrape), never an update.
// Callback gauges are sampled when /metrics is scraped (process metrics,
// sizes that are cheaper to read than to track).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace herald::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void inc(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

class Gauge {
 public:
  void set(std::int64_t v) { value_.store(v, std::memory_order_relaxed); }
  void add(std::int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  void sub(std::int64_t n) { value_.fetch_sub(n, std::memory_order_relaxed); }
  [[nodiscard]] std::int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

// Cumulative buckets with fixed upper bounds (the +Inf bucket is implicit).
// The sum is kept in integer micro-units so that observe() is two atomic adds
// and a binary search, with no compare-exchange loop on a double.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
  [[nodiscard]] const std::vector<double>& bounds() const { return bounds_; }
  // Count of observations <= bounds()[i] (non-cumulative per bucket; i ==
  // bounds().size() is the overflow bucket).
  [[nodiscard]] std::uint64_t bucket(std::size_t i) const {
    return buckets_[i].load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t count() const;
  [[nodiscard]] double sum() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
  std::atomic<std::int64_t> sum_micros_{0};
};

// Exponential bounds: start, start*factor, ... (count of them).
[[nodiscard]] std::vector<double> exponential_buckets(double start, double factor, int count);

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Returns the series for (name, labels), creating it on first use. The
  // reference stays valid for the registry's life. Registering a name again
  // with another type or help throws std::logic_error (a programming error).
  Counter& counter(std::string_view name, std::string_view help, const Labels& labels = {});
  Gauge& gauge(std::string_view name, std::string_view help, const Labels& labels = {});
  Histogram& histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                       const Labels& labels = {});
  // A gauge (or counter, with is_counter) whose value is read at scrape time.
  // The callback runs on the scraping thread and must be thread-safe.
  void callback(std::string_view name, std::string_view help, std::function<double()> read,
                bool is_counter = false, const Labels& labels = {});

  // The whole exposition, families in registration order.
  [[nodiscard]] std::string render() const;

 private:
  enum class Type : std::uint8_t { counter, gauge, histogram, callback_gauge, callback_counter };
  struct Series;
  struct Family;
  Series& series(std::string_view name, std::string_view help, Type type, const Labels& labels,
                 const std::function<std::unique_ptr<Series>()>& make);

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Family>> families_;
};

}  // namespace herald::metrics
