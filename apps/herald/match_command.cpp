#include "match_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

#include "core/json.hpp"
#include "core/result.hpp"
#include "match/matcher.hpp"

namespace herald::cli {
namespace {

struct MatchArgs {
  CLI::App* command = nullptr;
  std::string action;  // the sub-subcommand that ran
  std::string dict;
  std::string preset = "auto";
  std::string kind = "overlapping";
  std::string fold = "none";
  bool whole_word = false;
  bool json = false;
  std::string mask_with = "*";
  std::string prefix;
  std::size_t limit = 10;
  std::vector<std::string> files;
};

MatchArgs& args() {
  static MatchArgs a;
  return a;
}

// Reads a whole file ("-" is stdin); nullopt with a message on failure.
herald::Result<std::string, std::string> read_input(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail{fmt::format("herald match: cannot read '{}'", path)};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One keyword per line; blank lines are skipped. Errors name file and line.
herald::Result<std::vector<std::string>, std::string> read_dictionary(const std::string& path) {
  auto text = read_input(path);
  if (!text) return std::move(text).error();
  std::vector<std::string> words;
  std::istringstream lines(*text);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line.size() > match::kMaxKeywordBytes) {
      return fmt::format("herald match: {}:{}: keyword of {} bytes; the limit is {}", path, n,
                         line.size(), match::kMaxKeywordBytes);
    }
    words.push_back(std::move(line));
  }
  if (words.empty()) {
    return fmt::format("herald match: {}: the dictionary has no keywords (one per line)", path);
  }
  return words;
}

}  // namespace

void add_match_command(CLI::App& app) {
  MatchArgs& a = args();
  a.command = app.add_subcommand("match", "Search texts for a dictionary of keywords");
  a.command->require_subcommand(1);
  auto common = [&a](CLI::App* sub, bool takes_files) {
    sub->add_option("-d,--dict", a.dict, "Dictionary file: one keyword per line")->required();
    sub->add_option("--preset", a.preset, "Automaton")
        ->check(CLI::IsMember({"auto", "speed", "balanced", "memory"}))
        ->capture_default_str();
    sub->add_option("--kind", a.kind, "Match kind")
        ->check(CLI::IsMember({"overlapping", "leftmost-first", "leftmost-longest"}))
        ->capture_default_str();
    sub->add_option("--case", a.fold, "Case folding")
        ->check(CLI::IsMember({"none", "ascii", "unicode"}))
        ->capture_default_str();
    sub->add_flag("-w,--whole-word", a.whole_word, "Only matches between non-word characters");
    sub->add_flag("--json", a.json, "One JSON object per line");
    if (takes_files) sub->add_option("files", a.files, "Texts to search (default: stdin)");
    sub->callback([&a, sub] { a.action = sub->get_name(); });
  };
  common(a.command->add_subcommand("find", "Every occurrence, with byte and code-point spans"),
         true);
  common(a.command->add_subcommand("find-set",
                                   "Each keyword found, once, in order of first "
                                   "occurrence"),
         true);
  common(a.command->add_subcommand("contains", "Exit 0 if any keyword occurs, 1 if none does"),
         true);
  auto* mask = a.command->add_subcommand("mask", "Print the text with matched code points masked");
  common(mask, true);
  mask->add_option("--with", a.mask_with, "Mask for each matched code point")
      ->capture_default_str();
  auto* suggest = a.command->add_subcommand("suggest", "Keywords that start with a prefix");
  common(suggest, false);
  suggest->add_option("prefix", a.prefix, "The prefix")->required();
  suggest->add_option("--limit", a.limit, "At most this many")->capture_default_str();
}

bool match_selected() {
  return args().command != nullptr && args().command->parsed();
}

int run_match() {
  const MatchArgs& a = args();
  auto words = read_dictionary(a.dict);
  if (!words) {
    fmt::print(stderr, "{}\n", words.error());
    return 2;
  }
  match::Options o;
  // CLI11 has checked each name against the same spellings.
  o.preset = match::preset_named(a.preset).value_or(match::Preset::Auto);
  o.kind = match::kind_named(a.kind).value_or(match::MatchKind::Overlapping);
  o.fold = match::fold_named(a.fold).value_or(match::CaseFold::None);
  o.whole_word = a.whole_word;
  auto built = match::Matcher::try_build(std::span<const std::string>(*words), o);
  if (!built.ok()) {
    fmt::print(stderr, "herald match: {}: {}\n", a.dict, match::error_message(built.error()));
    return 2;
  }
  const match::Matcher& m = *built;

  if (a.action == "suggest") {
    for (match::PatternID id : m.suggest(a.prefix, a.limit)) {
      if (a.json) {
        std::string line = "{\"keyword\":";
        json::append_string(line, m.keyword(id));
        fmt::print("{}}}\n", line);
      } else {
        fmt::print("{}\n", m.keyword(id));
      }
    }
    return 0;
  }

  std::vector<std::string> files = a.files.empty() ? std::vector<std::string>{"-"} : a.files;
  bool found_any = false;
  std::vector<match::MatchDetail> details;
  std::vector<match::PatternID> set;
  for (const std::string& file : files) {
    auto text = read_input(file);
    if (!text) {
      fmt::print(stderr, "{}\n", text.error());
      return 2;
    }
    const std::string name = file == "-" ? "(stdin)" : file;
    if (a.action == "contains") {
      found_any = found_any || m.contains(*text);
    } else if (a.action == "mask") {
      fmt::print("{}", m.mask(*text, a.mask_with));
    } else if (a.action == "find-set") {
      set.clear();
      m.find_set(*text, set);
      for (match::PatternID id : set) {
        if (a.json) {
          std::string line = "{\"file\":";
          json::append_string(line, name);
          line += ",\"keyword\":";
          json::append_string(line, m.keyword(id));
          fmt::print("{}}}\n", line);
        } else {
          fmt::print("{}: {}\n", name, m.keyword(id));
        }
      }
    } else {  // find
      details.clear();
      m.find_matches(*text, details);
      for (const auto& d : details) {
        if (a.json) {
          std::string line = "{\"file\":";
          json::append_string(line, name);
          line += ",\"keyword\":";
          json::append_string(line, d.keyword);
          line += fmt::format(",\"start\":{},\"end\":{},\"cp_start\":{},\"cp_end\":{}}}", d.start,
                              d.end, d.cp_start, d.cp_end);
          fmt::print("{}\n", line);
        } else {
          fmt::print("{}:{}-{}: {}\n", name, d.start, d.end, d.keyword);
        }
      }
    }
  }
  if (a.action == "contains") {
    if (!a.json) fmt::print("{}\n", found_any ? "yes" : "no");
    if (a.json) fmt::print("{{\"contains\":{}}}\n", found_any ? "true" : "false");
    return found_any ? 0 : 1;
  }
  return 0;
}

}  // namespace herald::cli
