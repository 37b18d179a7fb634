// heraldd: parse the configuration, set up logging, run. See cli.hpp for the
// command line and daemon.hpp for the run loop.
#include <unistd.h>

#include <cstdio>

#include "cli.hpp"
#include "core/log.hpp"
#include "daemon.hpp"

int main(int argc, char** argv) {
  using namespace herald;
  heraldd::CliResult cli = heraldd::parse_cli(argc, argv, environ);
  if (!cli.settings) {
    std::fputs(cli.out.c_str(), stdout);
    std::fputs(cli.err.c_str(), stderr);
    return cli.exit_code;
  }
  log::Level level = log::Level::info;
  (void)log::parse_level(cli.settings->log.level, level);  // validated by the schema
  log::init(level, cli.settings->log.format == "json" ? log::Format::json : log::Format::text);
  if (!cli.config_file.empty()) log::info("configuration read", {{"file", cli.config_file}});
  for (const auto& name : cli.unknown_env) {
    log::warn("ignoring unknown environment variable", {{"name", name}});
  }
  return heraldd::run(*cli.settings);
}
