// herald: command-line tools for Herald's engines.
//
//   herald match find --dict words.txt [FILE...]     every occurrence
//   herald match --help                                all subcommands and flags
//   herald kw add chat spam scam --action reject        keyword dictionaries
//                                                       (heraldd's, or --redis HOST:PORT)
//
// Exit codes: 0 success (for `contains`: found), 1 `contains` found nothing,
// 2 bad arguments or an unusable dictionary or input file.
#include <CLI/CLI.hpp>

#include "kw_command.hpp"
#include "match_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"herald: command-line tools for Herald's engines", "herald"};
  app.set_version_flag("--version", std::string("herald ") + HERALD_VERSION);
  app.require_subcommand(1);
  herald::cli::add_match_command(app);
  herald::cli::add_kw_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (herald::cli::match_selected()) return herald::cli::run_match();
  if (herald::cli::kw_selected()) return herald::cli::run_kw();
  return 2;
}
