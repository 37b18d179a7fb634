#include "core/metrics/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace herald::metrics {

struct Registry::Series {
  Labels labels;
  std::unique_ptr<Counter> counter;
  std::unique_ptr<Gauge> gauge;
  std::unique_ptr<Histogram> histogram;
  std::function<double()> read;
};

struct Registry::Family {
  std::string name;
  std::string help;
  Type type;
  std::vector<std::unique_ptr<Series>> series;
};

namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

void append_escaped_label(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void append_help(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// {a="x",b="y"} with an optional extra label (histogram "le").
void append_labels(std::string& out, const Labels& labels, std::string_view extra_key = {},
                   std::string_view extra_value = {}) {
  if (labels.empty() && extra_key.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += k;
    out += "=\"";
    append_escaped_label(out, v);
    out += '"';
  }
  if (!extra_key.empty()) {
    if (!first) out += ',';
    out += extra_key;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

std::string format_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  if (!std::is_sorted(bounds_.begin(), bounds_.end()))
    throw std::logic_error("histogram bounds must be sorted");
}

void Histogram::observe(double value) {
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  buckets_[static_cast<std::size_t>(it - bounds_.begin())].fetch_add(1, std::memory_order_relaxed);
  sum_micros_.fetch_add(static_cast<std::int64_t>(std::llround(value * 1e6)),
                        std::memory_order_relaxed);
}

std::uint64_t Histogram::count() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) total += bucket(i);
  return total;
}

double Histogram::sum() const {
  return static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6;
}

std::vector<double> exponential_buckets(double start, double factor, int count) {
  std::vector<double> out;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) out.push_back(v);
  return out;
}

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Series& Registry::series(std::string_view name, std::string_view help, Type type,
                                   const Labels& labels,
                                   const std::function<std::unique_ptr<Series>()>& make) {
  if (!valid_name(name)) throw std::logic_error("invalid metric name: " + std::string(name));
  for (const auto& [k, v] : labels) {
    if (!valid_name(k) || k == "le") throw std::logic_error("invalid label name: " + k);
  }
  std::lock_guard lock(mutex_);
  Family* family = nullptr;
  for (auto& f : families_) {
    if (f->name == name) family = f.get();
  }
  if (family == nullptr) {
    families_.push_back(
        std::make_unique<Family>(Family{std::string(name), std::string(help), type, {}}));
    family = families_.back().get();
  } else if (family->type != type) {
    throw std::logic_error("metric registered with two types: " + std::string(name));
  }
  for (auto& s : family->series) {
    if (s->labels == labels) {
      if (type == Type::callback_gauge || type == Type::callback_counter)
        throw std::logic_error("callback metric registered twice: " + std::string(name));
      return *s;
    }
  }
  family->series.push_back(make());
  family->series.back()->labels = labels;
  return *family->series.back();
}

Counter& Registry::counter(std::string_view name, std::string_view help, const Labels& labels) {
  return *series(name, help, Type::counter, labels, [] {
            auto s = std::make_unique<Series>();
            s->counter = std::make_unique<Counter>();
            return s;
          }).counter;
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, const Labels& labels) {
  return *series(name, help, Type::gauge, labels, [] {
            auto s = std::make_unique<Series>();
            s->gauge = std::make_unique<Gauge>();
            return s;
          }).gauge;
}

Histogram& Registry::histogram(std::string_view name, std::string_view help,
                               std::vector<double> bounds, const Labels& labels) {
  return *series(name, help, Type::histogram, labels, [&bounds] {
            auto s = std::make_unique<Series>();
            s->histogram = std::make_unique<Histogram>(bounds);
            return s;
          }).histogram;
}

void Registry::callback(std::string_view name, std::string_view help, std::function<double()> read,
                        bool is_counter, const Labels& labels) {
  series(name, help, is_counter ? Type::callback_counter : Type::callback_gauge, labels, [&read] {
    auto s = std::make_unique<Series>();
    s->read = std::move(read);
    return s;
  });
}

std::string Registry::render() const {
  std::lock_guard lock(mutex_);
  std::string out;
  out.reserve(4096);
  for (const auto& f : families_) {
    std::string_view type_name;
    switch (f->type) {
      case Type::counter:
      case Type::callback_counter:
        type_name = "counter";
        break;
      case Type::gauge:
      case Type::callback_gauge:
        type_name = "gauge";
        break;
      case Type::histogram:
        type_name = "histogram";
        break;
    }
    out += "# HELP " + f->name + ' ';
    append_help(out, f->help);
    out += "\n# TYPE " + f->name + ' ' + std::string(type_name) + '\n';
    for (const auto& s : f->series) {
      switch (f->type) {
        case Type::counter:
          out += f->name;
          append_labels(out, s->labels);
          out += ' ' + std::to_string(s->counter->value()) + '\n';
          break;
        case Type::gauge:
          out += f->name;
          append_labels(out, s->labels);
          out += ' ' + std::to_string(s->gauge->value()) + '\n';
          break;
        case Type::callback_gauge:
        case Type::callback_counter:
          out += f->name;
          append_labels(out, s->labels);
          out += ' ' + format_double(s->read()) + '\n';
          break;
        case Type::histogram: {
          const Histogram& h = *s->histogram;
          std::uint64_t cumulative = 0;
          for (std::size_t i = 0; i <= h.bounds().size(); ++i) {
            cumulative += h.bucket(i);
            out += f->name + "_bucket";
            std::string le = i < h.bounds().size() ? format_double(h.bounds()[i]) : "+Inf";
            append_labels(out, s->labels, "le", le);
            out += ' ' + std::to_string(cumulative) + '\n';
          }
          out += f->name + "_sum";
          append_labels(out, s->labels);
          out += ' ' + format_double(h.sum()) + '\n';
          out += f->name + "_count";
          append_labels(out, s->labels);
          // The +Inf bucket, not count(): both come from the same reads, so a
          // scrape racing observe() still shows _count equal to le="+Inf".
          out += ' ' + std::to_string(cumulative) + '\n';
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace herald::metrics
