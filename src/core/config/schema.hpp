// A configuration schema: every setting a program accepts, with its key, type,
// range, default and help, bound to the member of a settings struct that
// holds it. One table drives the TOML file, the HERALD_* environment, the
// command-line flags, --help and --print-config, so they cannot disagree.
//
// Precedence, lowest first: defaults (the struct's initial values), the file,
// the environment, the flags. Every source reports every error it finds, each
// naming the key, where it came from (file:line:column, variable or flag) and
// what was expected.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/config/values.hpp"

namespace herald::config {

struct Origin {
  enum class Kind : std::uint8_t { default_value, file, env, flag };
  Kind kind = Kind::default_value;
  std::string name;  // file path, variable name or flag, per kind
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  // "herald.toml:3:11", "environment HERALD_SERVER_THREADS", "flag --server.threads"
  [[nodiscard]] std::string describe() const;
};

struct Error {
  std::string key;  // may be empty (a TOML syntax error has no key)
  Origin origin;
  std::string message;

  // "config error: herald.toml:3:11: server.threads: expected an integer in
  //  0..256, got 9999"
  [[nodiscard]] std::string to_string() const;
};

// A value as a source delivers it: text from env and flags, typed from TOML.
using Raw = std::variant<std::string, std::int64_t, double, bool>;

struct Field {
  std::string key;       // "server.listen": section(s) and name, dot-separated
  std::string expected;  // "an integer in 0..256", for help and errors
  std::string help;
  // Checks and stores the value; returns nullopt or what was wrong.
  std::function<std::optional<std::string>(const Raw&)> assign;
  // The current value as TOML (used by --print-config and in --help).
  std::function<std::string()> show;

  // HERALD_SERVER_LISTEN for server.listen.
  [[nodiscard]] std::string env_name() const;
};

class Schema {
 public:
  void add_bool(std::string key, bool& target, std::string help);
  void add_string(std::string key, std::string& target, std::string help,
                  std::size_t max_length = 4096);
  void add_choice(std::string key, std::string& target, std::vector<std::string> choices,
                  std::string help);
  void add_endpoint(std::string key, Endpoint& target, std::string help);
  void add_duration(std::string key, std::chrono::milliseconds& target,
                    std::chrono::milliseconds min, std::chrono::milliseconds max, std::string help);
  void add_size(std::string key, std::uint64_t& target, std::uint64_t min, std::uint64_t max,
                std::string help);

  // `key` and `help` are moved on; clang-tidy 14 reads the template before
  // instantiation and misses that.
  template <class Int>
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  void add_int(std::string key, Int& target, std::int64_t min, std::int64_t max, std::string help) {
    static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
    add_int_impl(
        std::move(key), [&target](std::int64_t v) { target = static_cast<Int>(v); },
        [&target] { return static_cast<std::int64_t>(target); }, min, max, std::move(help));
  }

  // A section whose tables are named by the user, e.g. [namespaces.chat] and
  // [namespaces.news]. The first time a name is seen, `entry` registers that
  // table's keys into a fresh Schema (binding them to storage it creates for
  // the name). Such tables come from the file only, not from the
  // environment or flags, whose names are fixed.
  using TableEntry = std::function<void(const std::string& name, Schema& keys)>;
  void add_table_map(std::string prefix, TableEntry entry);
  [[nodiscard]] bool is_table_map(std::string_view prefix) const;
  // The keys of table `name` under `prefix`, created on first use; nullptr
  // when prefix is not a table map.
  [[nodiscard]] Schema* table(std::string_view prefix, const std::string& name);

  [[nodiscard]] const Field* find(std::string_view key) const;
  [[nodiscard]] std::span<const Field> fields() const { return fields_; }
  // True when some key starts with "<prefix>." (a TOML table may open there).
  [[nodiscard]] bool is_section(std::string_view prefix) const;
  // The known key closest to an unknown one, for "did you mean" hints.
  [[nodiscard]] std::optional<std::string> suggest(std::string_view unknown) const;

  // The error for a key (or, with what = "section", a table) no field has,
  // with a "did you mean" hint when one is close.
  [[nodiscard]] Error unknown(std::string_view key, const Origin& origin,
                              std::string_view what = "key") const;

  // Applies one value from a source. Unknown keys and bad values are errors.
  [[nodiscard]] std::optional<Error> set(std::string_view key, const Raw& value,
                                         const Origin& origin);

  // The effective configuration as a TOML document, grouped by section.
  [[nodiscard]] std::string to_toml() const;

 private:
  void add(Field field);
  void add_int_impl(std::string key, std::function<void(std::int64_t)> store,
                    std::function<std::int64_t()> load, std::int64_t min, std::int64_t max,
                    std::string help);
  struct TableMap {
    std::string prefix;
    TableEntry entry;
    std::vector<std::pair<std::string, std::unique_ptr<Schema>>> tables;
  };
  std::vector<Field> fields_;
  std::vector<TableMap> maps_;
};

// Applies every HERALD_* variable in `environ` that names a key. Variables
// that look like ours but name no key are returned in `unknown` so the caller
// can warn; they are not errors (the environment is shared with other tools).
// HERALD_CONFIG is the config file path and is skipped here.
[[nodiscard]] std::vector<Error> apply_environment(Schema& schema, char** environ,
                                                   std::vector<std::string>* unknown);

// Applies a TOML document. `source_name` names it in errors (a path).
[[nodiscard]] std::vector<Error> apply_toml(Schema& schema, std::string_view text,
                                            const std::string& source_name);

// Reads and applies a TOML file; a missing or unreadable file is an error.
[[nodiscard]] std::vector<Error> apply_toml_file(Schema& schema, const std::string& path);

}  // namespace herald::config
