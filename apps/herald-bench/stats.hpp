// Result bookkeeping for the scenarios: latency samples (exact percentiles,
// from every sample), and the final report as JSON and as a table.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace herald::bench {

class Latencies {
 public:
  void add(std::int64_t ns) { samples_us_.push_back(static_cast<std::uint32_t>(ns / 1000)); }
  [[nodiscard]] std::size_t count() const { return samples_us_.size(); }
  // q in [0, 1]; milliseconds. Sorts on first use after adds.
  [[nodiscard]] double quantile_ms(double q);
  [[nodiscard]] double max_ms();

 private:
  std::vector<std::uint32_t> samples_us_;
  std::size_t sorted_size_ = 0;  // samples_us_ is sorted when this equals its size
};

// An ordered list of named values, printed as one JSON object and as an
// aligned two-column table.
class Report {
 public:
  void add(std::string key, double value);
  void add(std::string key, std::uint64_t value);
  void add(std::string key, std::string value);
  [[nodiscard]] std::string json() const;
  [[nodiscard]] std::string table() const;

 private:
  struct Item {
    std::string key;
    std::string json_value;
    std::string text;
  };
  std::vector<Item> items_;
};

}  // namespace herald::bench
