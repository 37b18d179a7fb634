#include "core/config/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

namespace herald::config {
namespace {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string describe_raw(const Raw& raw) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return quote(v.size() > 64 ? v.substr(0, 64) + "..." : v);
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "true" : "false";
        } else {
          return fmt::format("{}", v);
        }
      },
      raw);
}

// Text from env/flags, or a TOML string: the text. Other TOML types: nullopt.
const std::string* as_text(const Raw& raw) {
  return std::get_if<std::string>(&raw);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string Origin::describe() const {
  switch (kind) {
    case Kind::default_value:
      return "default";
    case Kind::file:
      if (line == 0) return name;
      return fmt::format("{}:{}:{}", name, line, column);
    case Kind::env:
      return "environment " + name;
    case Kind::flag:
      return "flag " + name;
  }
  return name;
}

std::string Error::to_string() const {
  if (key.empty()) return fmt::format("config error: {}: {}", origin.describe(), message);
  return fmt::format("config error: {}: {}: {}", origin.describe(), key, message);
}

std::string Field::env_name() const {
  std::string out = "HERALD_";
  for (char c : key) {
    out += (c == '.' || c == '-') ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  }
  return out;
}

void Schema::add(Field field) {
  if (find(field.key) != nullptr)
    throw std::logic_error("config key registered twice: " + field.key);
  fields_.push_back(std::move(field));
}

void Schema::add_bool(std::string key, bool& target, std::string help) {
  add(Field{std::move(key), "true or false", std::move(help),
            [&target](const Raw& raw) -> std::optional<std::string> {
              if (const bool* b = std::get_if<bool>(&raw)) {
                target = *b;
                return std::nullopt;
              }
              if (const std::string* t = as_text(raw)) {
                if (auto b = parse_bool(*t)) {
                  target = *b;
                  return std::nullopt;
                }
              }
              return "expected true or false, got " + describe_raw(raw);
            },
            [&target] { return std::string(target ? "true" : "false"); }});
}

void Schema::add_string(std::string key, std::string& target, std::string help,
                        std::size_t max_length) {
  add(Field{std::move(key), "a string", std::move(help),
            [&target, max_length](const Raw& raw) -> std::optional<std::string> {
              const std::string* t = as_text(raw);
              if (t == nullptr) return "expected a string, got " + describe_raw(raw);
              if (t->size() > max_length)
                return fmt::format("expected at most {} bytes, got {}", max_length, t->size());
              target = *t;
              return std::nullopt;
            },
            [&target] { return quote(target); }});
}

void Schema::add_choice(std::string key, std::string& target, std::vector<std::string> choices,
                        std::string help) {
  std::string expected = "one of ";
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i) expected += ", ";
    expected += quote(choices[i]);
  }
  add(Field{std::move(key), expected, std::move(help),
            [&target, choices, expected](const Raw& raw) -> std::optional<std::string> {
              const std::string* t = as_text(raw);
              if (t && std::find(choices.begin(), choices.end(), *t) != choices.end()) {
                target = *t;
                return std::nullopt;
              }
              return "expected " + expected + ", got " + describe_raw(raw);
            },
            [&target] { return quote(target); }});
}

void Schema::add_endpoint(std::string key, Endpoint& target, std::string help) {
  add(Field{std::move(key), "host:port (e.g. \"127.0.0.1:8080\", \"[::1]:8080\")", std::move(help),
            [&target](const Raw& raw) -> std::optional<std::string> {
              const std::string* t = as_text(raw);
              if (t) {
                if (auto ep = parse_endpoint(*t)) {
                  target = *ep;
                  return std::nullopt;
                }
              }
              return "expected host:port such as \"127.0.0.1:8080\" or \"[::1]:8080\" (port "
                     "0..65535), got " +
                     describe_raw(raw);
            },
            [&target] { return quote(target.to_string()); }});
}

void Schema::add_duration(std::string key, std::chrono::milliseconds& target,
                          std::chrono::milliseconds min, std::chrono::milliseconds max,
                          std::string help) {
  std::string expected =
      fmt::format("a duration in {}..{}", format_duration(min), format_duration(max));
  add(Field{std::move(key), expected + " (like \"250ms\", \"10s\", \"1m\")", std::move(help),
            [&target, min, max, expected](const Raw& raw) -> std::optional<std::string> {
              const std::string* t = as_text(raw);
              std::optional<std::chrono::milliseconds> d = t ? parse_duration(*t) : std::nullopt;
              if (!d || *d < min || *d > max)
                return "expected " + expected + " written with a unit (like \"250ms\", " +
                       "\"10s\", \"1m\"), got " + describe_raw(raw);
              target = *d;
              return std::nullopt;
            },
            [&target] { return quote(format_duration(target)); }});
}

void Schema::add_size(std::string key, std::uint64_t& target, std::uint64_t min, std::uint64_t max,
                      std::string help) {
  std::string expected = fmt::format("a size in {}..{} bytes", format_size(min), format_size(max));
  add(Field{std::move(key), expected + " (like 65536 or \"64KiB\")", std::move(help),
            [&target, min, max, expected](const Raw& raw) -> std::optional<std::string> {
              std::optional<std::uint64_t> n;
              if (const std::string* t = as_text(raw)) n = parse_size(*t);
              if (const std::int64_t* i = std::get_if<std::int64_t>(&raw); i && *i >= 0)
                n = static_cast<std::uint64_t>(*i);
              if (!n || *n < min || *n > max)
                return "expected " + expected + " (like 65536 or \"64KiB\"), got " +
                       describe_raw(raw);
              target = *n;
              return std::nullopt;
            },
            [&target] {
              std::string s = format_size(target);
              return s.find_first_not_of("0123456789") == std::string::npos ? s : quote(s);
            }});
}

void Schema::add_int_impl(std::string key, std::function<void(std::int64_t)> store,
                          std::function<std::int64_t()> load, std::int64_t min, std::int64_t max,
                          std::string help) {
  std::string expected = fmt::format("an integer in {}..{}", min, max);
  add(Field{
      std::move(key), expected, std::move(help),
      [store = std::move(store), min, max, expected](const Raw& raw) -> std::optional<std::string> {
        std::optional<std::int64_t> n;
        if (const std::int64_t* i = std::get_if<std::int64_t>(&raw)) n = *i;
        if (const std::string* t = as_text(raw)) n = parse_int(*t);
        if (!n || *n < min || *n > max)
          return "expected " + expected + ", got " + describe_raw(raw);
        store(*n);
        return std::nullopt;
      },
      [load = std::move(load)] { return std::to_string(load()); }});
}

void Schema::add_table_map(std::string prefix, TableEntry entry) {
  maps_.push_back(TableMap{std::move(prefix), std::move(entry), {}});
}

bool Schema::is_table_map(std::string_view prefix) const {
  for (const TableMap& m : maps_)
    if (m.prefix == prefix) return true;
  return false;
}

Schema* Schema::table(std::string_view prefix, const std::string& name) {
  for (TableMap& m : maps_) {
    if (m.prefix != prefix) continue;
    for (auto& [n, keys] : m.tables)
      if (n == name) return keys.get();
    m.tables.emplace_back(name, std::make_unique<Schema>());
    m.entry(name, *m.tables.back().second);
    return m.tables.back().second.get();
  }
  return nullptr;
}

const Field* Schema::find(std::string_view key) const {
  for (const Field& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

bool Schema::is_section(std::string_view prefix) const {
  if (is_table_map(prefix)) return true;
  for (const Field& f : fields_) {
    if (f.key.size() > prefix.size() && f.key.starts_with(prefix) && f.key[prefix.size()] == '.')
      return true;
  }
  return false;
}

std::optional<std::string> Schema::suggest(std::string_view unknown) const {
  const Field* best = nullptr;
  std::size_t best_d = 0;
  for (const Field& f : fields_) {
    std::size_t d = edit_distance(unknown, f.key);
    if (best == nullptr || d < best_d) best = &f, best_d = d;
  }
  // Only suggest what a typo could explain: a few edits, relative to length.
  if (best != nullptr && best_d <= std::max<std::size_t>(2, unknown.size() / 4)) return best->key;
  return std::nullopt;
}

std::optional<Error> Schema::set(std::string_view key, const Raw& value, const Origin& origin) {
  // find() returns a pointer into fields_; set() never adds fields.
  for (Field& f : fields_) {
    if (f.key != key) continue;
    if (auto problem = f.assign(value)) return Error{f.key, origin, *problem};
    return std::nullopt;
  }
  return unknown(key, origin);
}

Error Schema::unknown(std::string_view key, const Origin& origin, std::string_view what) const {
  std::string message = "unknown " + std::string(what);
  if (auto s = suggest(key)) message += "; did you mean '" + *s + "'?";
  message += " (--help lists every key)";
  return Error{std::string(key), origin, message};
}

std::string Schema::to_toml() const {
  // Group by section, keeping registration order within each.
  std::map<std::string, std::vector<const Field*>> sections;
  std::vector<std::string> order;
  for (const Field& f : fields_) {
    auto dot = f.key.rfind('.');
    std::string section = dot == std::string::npos ? "" : f.key.substr(0, dot);
    if (!sections.contains(section)) order.push_back(section);
    sections[section].push_back(&f);
  }
  std::string out;
  for (const std::string& section : order) {
    if (!section.empty()) out += (out.empty() ? "" : "\n") + fmt::format("[{}]\n", section);
    for (const Field* f : sections[section]) {
      auto dot = f->key.rfind('.');
      std::string name = dot == std::string::npos ? f->key : f->key.substr(dot + 1);
      out += fmt::format("# {}\n{} = {}\n", f->help, name, f->show());
    }
  }
  for (const TableMap& m : maps_) {
    for (const auto& [name, keys] : m.tables) {
      out += fmt::format("\n[{}.{}]\n", m.prefix, name);
      out += keys->to_toml();
    }
  }
  return out;
}

std::vector<Error> apply_environment(Schema& schema, char** environ,
                                     std::vector<std::string>* unknown) {
  std::vector<Error> errors;
  if (environ == nullptr) return errors;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("HERALD_")) continue;
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = entry.substr(0, eq);
    std::string_view value = entry.substr(eq + 1);
    if (name == "HERALD_CONFIG") continue;
    const Field* match = nullptr;
    for (const Field& f : schema.fields()) {
      if (f.env_name() == name) match = &f;
    }
    if (match == nullptr) {
      if (unknown) unknown->emplace_back(name);
      continue;
    }
    Origin origin{Origin::Kind::env, std::string(name), 0, 0};
    if (auto err = schema.set(match->key, Raw{std::string(value)}, origin))
      errors.push_back(std::move(*err));
  }
  return errors;
}

}  // namespace herald::config
