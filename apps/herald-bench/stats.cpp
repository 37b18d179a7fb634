#include "stats.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/json.hpp"
#include "scenarios.hpp"

namespace herald::bench {

double Latencies::quantile_ms(double q) {
  if (samples_us_.empty()) return 0;
  // Sorted up to sorted_size_; adds since then (progress lines read
  // quantiles mid-run) need a new sort.
  if (sorted_size_ != samples_us_.size()) {
    std::sort(samples_us_.begin(), samples_us_.end());
    sorted_size_ = samples_us_.size();
  }
  auto idx = static_cast<std::size_t>(q * static_cast<double>(samples_us_.size() - 1));
  return samples_us_[idx] / 1000.0;
}

double Latencies::max_ms() {
  return quantile_ms(1.0);
}

void Report::add(std::string key, double value) {
  items_.push_back(
      Item{std::move(key), fmt::format("{:.6g}", value), fmt::format("{:.4g}", value)});
}

void Report::add(std::string key, std::uint64_t value) {
  items_.push_back(Item{std::move(key), std::to_string(value), std::to_string(value)});
}

void Report::add(std::string key, std::string value) {
  std::string j;
  json::append_string(j, value);
  items_.push_back(Item{std::move(key), std::move(j), std::move(value)});
}

std::string Report::json() const {
  std::string out = "{";
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (i) out += ',';
    json::append_string(out, items_[i].key);
    out += ':';
    out += items_[i].json_value;
  }
  return out + "}";
}

std::string Report::table() const {
  std::size_t width = 0;
  for (const auto& it : items_) width = std::max(width, it.key.size());
  std::string out;
  for (const auto& it : items_) out += fmt::format("  {:<{}}  {}\n", it.key, width, it.text);
  return out;
}

std::string saturation(double bench_cores, double server_cores, unsigned server_threads,
                       double machine_busy_percent) {
  if (bench_cores > 0.9) return "load generator";
  if (server_cores > 0.9 * std::max(1u, server_threads)) return "server";
  if (machine_busy_percent > 90) return "machine";
  return "neither";
}

}  // namespace herald::bench
