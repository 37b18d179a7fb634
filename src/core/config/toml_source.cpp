// TOML configuration files, through toml++ (Debian's libtomlplusplus).
// toml++ reports syntax errors with their line and column; this file walks
// the parsed tables, maps each leaf to a schema key, and reports unknown keys
// and wrong types at the position of the offending key.
#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include "core/config/schema.hpp"

namespace herald::config {
namespace {

Origin origin_of(const std::string& file, const toml::source_region& where) {
  return Origin{Origin::Kind::file, file, where.begin.line, where.begin.column};
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

// Walks `table`. Keys are looked up in `schema` under `lookup_prefix` and
// reported under `display_prefix` (they differ inside a table map, whose
// schema holds bare names: "history_size" is shown as
// "namespaces.chat.history_size").
void walk(Schema& schema, const toml::table& table, const std::string& lookup_prefix,
          const std::string& display_prefix, const std::string& file, std::vector<Error>& errors) {
  // Table maps are walked after the plain keys of the same table, so that an
  // entry created from defaults (e.g. a namespace copying [rooms]) sees the
  // file's values for them, whatever the order of the tables in the file.
  struct Deferred {
    std::string key, shown;
    const toml::table* table;
  };
  std::vector<Deferred> deferred;
  for (auto&& [k, node] : table) {
    std::string name(k.str());
    std::string key = lookup_prefix.empty() ? name : lookup_prefix + "." + name;
    std::string shown = display_prefix.empty() ? name : display_prefix + "." + name;
    // Report at the key when toml++ knows where it is, else at the value.
    Origin origin = origin_of(file, k.source().begin.line ? k.source() : node.source());
    auto push = [&](Error e) {
      e.key = shown;
      errors.push_back(std::move(e));
    };
    if (const toml::table* sub = node.as_table()) {
      if (const Field* f = schema.find(key)) {
        push(Error{key, origin, "expected " + f->expected + ", got a table"});
      } else if (schema.is_table_map(key)) {
        deferred.push_back(Deferred{key, shown, sub});
      } else if (!schema.is_section(key)) {
        push(schema.unknown(key, origin, "section"));
      } else {
        walk(schema, *sub, key, shown, file, errors);
      }
      continue;
    }
    Raw raw;
    if (node.is_string()) {
      raw = std::string(node.as_string()->get());
    } else if (node.is_integer()) {
      raw = node.as_integer()->get();
    } else if (node.is_floating_point()) {
      raw = node.as_floating_point()->get();
    } else if (node.is_boolean()) {
      raw = node.as_boolean()->get();
    } else {
      if (const Field* f = schema.find(key)) {
        push(Error{key, origin,
                   "expected " + f->expected + ", got " + std::string(type_name(node))});
      } else {
        push(schema.unknown(key, origin));
      }
      continue;
    }
    if (auto err = schema.set(key, raw, origin)) push(std::move(*err));
  }
  for (const auto& [key, shown, sub] : deferred) {
    for (auto&& [entry_key, entry_node] : *sub) {
      std::string entry(entry_key.str());
      const toml::table* entry_table = entry_node.as_table();
      if (entry_table == nullptr) {
        errors.push_back(Error{shown + "." + entry, origin_of(file, entry_node.source()),
                               "expected a table [" + shown + "." + entry + "]"});
        continue;
      }
      walk(*schema.table(key, entry), *entry_table, "", shown + "." + entry, file, errors);
    }
  }
}

}  // namespace

std::vector<Error> apply_toml(Schema& schema, std::string_view text,
                              const std::string& source_name) {
  std::vector<Error> errors;
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    errors.push_back(Error{"", origin_of(source_name, e.source()),
                           "TOML syntax error: " + std::string(e.description())});
    return errors;
  }
  walk(schema, root, "", "", source_name, errors);
  return errors;
}

std::vector<Error> apply_toml_file(Schema& schema, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return {Error{"", Origin{Origin::Kind::file, path, 0, 0},
                  "cannot read the config file (does it exist, and is it readable?)"}};
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return apply_toml(schema, buffer.str(), path);
}

}  // namespace herald::config
