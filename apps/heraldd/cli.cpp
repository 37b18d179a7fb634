#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string_view>

namespace herald::heraldd {
namespace {

constexpr const char* kDescription =
    "heraldd: Herald real-time messaging server.\n\n"
    "With no configuration it listens on 127.0.0.1:8080 with everything in-process;\n"
    "nothing else needs to run. Every setting below can be given three ways, highest\n"
    "precedence last: in the TOML file (--config or $HERALD_CONFIG) as `key = value`\n"
    "under its [section], as an environment variable HERALD_SECTION_KEY, or as a flag\n"
    "--section.key VALUE. --print-config shows the result; docs/configuration.md\n"
    "describes every key.\n";

std::string format_errors(const std::vector<config::Error>& errors) {
  std::string out;
  for (const auto& e : errors) out += e.to_string() + "\n";
  out += "heraldd: " + std::to_string(errors.size()) + " configuration error" +
         (errors.size() == 1 ? "" : "s") + "; nothing started\n";
  return out;
}

}  // namespace

CliResult parse_cli(int argc, const char* const* argv, char** environ) {
  CliResult result;
  // Settings live on the heap so the schema's references stay valid while
  // the result is moved around; the value is copied out at the end.
  auto settings = std::make_unique<Settings>();
  config::Schema schema;
  register_settings(schema, *settings);

  CLI::App app{kDescription, "heraldd"};
  app.set_version_flag("--version", std::string("heraldd ") + HERALD_VERSION);
  std::string config_path;
  bool print_config = false;
  bool check_config = false;
  app.add_option("-c,--config", config_path,
                 "TOML configuration file (default: $HERALD_CONFIG if set, else none)");
  app.add_flag("--print-config", print_config,
               "Print the effective configuration as TOML and exit");
  app.add_flag("--check-config", check_config,
               "Validate the configuration and exit (0 if valid, 2 if not)");

  // One flag per key. CLI11 stores the text; the schema parses it, so flags,
  // file and environment share one parser and one error format.
  std::map<std::string, std::string> flag_values;
  std::vector<std::pair<std::string, CLI::Option*>> flag_options;
  for (const config::Field& f : schema.fields()) {
    std::string desc =
        f.help + "\n  expects " + f.expected + "; default " + f.show() + "; env " + f.env_name();
    CLI::Option* opt = app.add_option("--" + f.key, flag_values[f.key], desc);
    opt->group("Settings")->take_last()->type_name("VALUE");
    flag_options.emplace_back(f.key, opt);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    result.out = app.help();
    return result;
  } catch (const CLI::CallForVersion&) {
    result.out = std::string("heraldd ") + HERALD_VERSION + "\n";
    return result;
  } catch (const CLI::ParseError& e) {
    result.exit_code = 2;
    result.err = std::string("heraldd: ") + e.what() + "\nRun 'heraldd --help' for every flag.\n";
    return result;
  }

  std::vector<config::Error> errors;
  if (config_path.empty()) {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string_view entry(*e);
      if (entry.starts_with("HERALD_CONFIG=")) config_path = entry.substr(14);
    }
  }
  if (!config_path.empty()) {
    result.config_file = config_path;
    auto e = config::apply_toml_file(schema, config_path);
    errors.insert(errors.end(), e.begin(), e.end());
  }
  {
    auto e = config::apply_environment(schema, environ, &result.unknown_env);
    errors.insert(errors.end(), e.begin(), e.end());
  }
  for (const auto& [key, opt] : flag_options) {
    if (opt->count() == 0) continue;
    config::Origin origin{config::Origin::Kind::flag, "--" + key, 0, 0};
    if (auto e = schema.set(key, config::Raw{flag_values[key]}, origin)) errors.push_back(*e);
  }

  if (!errors.empty()) {
    result.exit_code = 2;
    result.err = format_errors(errors);
    return result;
  }
  if (print_config) {
    result.out = schema.to_toml();
    return result;
  }
  if (check_config) {
    result.out = "configuration is valid\n";
    return result;
  }
  result.settings = *settings;
  return result;
}

}  // namespace herald::heraldd
