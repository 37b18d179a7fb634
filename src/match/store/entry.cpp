#include "match/store/entry.hpp"

#include "match/detail/utf8.hpp"
#include "match/options.hpp"

namespace herald::match::store {

std::string_view action_name(Action a) {
  switch (a) {
    case Action::reject:
      return "reject";
    case Action::mask:
      return "mask";
    case Action::flag:
      return "flag";
  }
  return "flag";
}

std::optional<Action> parse_action(std::string_view name) {
  if (name == "reject") return Action::reject;
  if (name == "mask") return Action::mask;
  if (name == "flag") return Action::flag;
  return std::nullopt;
}

namespace {
bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}
}  // namespace

std::optional<std::string> dictionary_name_error(std::string_view name) {
  if (name.empty()) return "dictionary name is empty";
  if (name.size() > kMaxDictionaryNameBytes)
    return "dictionary name is " + std::to_string(name.size()) + " bytes; the limit is " +
           std::to_string(kMaxDictionaryNameBytes);
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i]))
      return "dictionary name has a byte outside [A-Za-z0-9_.-] at offset " + std::to_string(i);
  }
  return std::nullopt;
}

std::optional<std::string> keyword_error(std::string_view keyword) {
  if (keyword.empty()) return "keyword is empty";
  if (keyword.size() > kMaxKeywordBytes)
    return "keyword is " + std::to_string(keyword.size()) + " bytes; the limit is " +
           std::to_string(kMaxKeywordBytes);
  for (std::size_t i = 0; i < keyword.size();) {
    const detail::Unit u = detail::decode(keyword, i);
    if (u.cp == detail::kInvalid) return "keyword is not valid UTF-8 at byte " + std::to_string(i);
    i += u.len;
  }
  return std::nullopt;
}

std::optional<std::string> category_error(std::string_view category) {
  if (category.size() > kMaxCategoryBytes)
    return "category is " + std::to_string(category.size()) + " bytes; the limit is " +
           std::to_string(kMaxCategoryBytes);
  for (std::size_t i = 0; i < category.size(); ++i) {
    if (!name_char(category[i]))
      return "category has a byte outside [A-Za-z0-9_.-] at offset " + std::to_string(i);
  }
  return std::nullopt;
}

std::string encode_meta(const Entry& e) {
  std::string out(action_name(e.action));
  out += ':';
  out += e.category;
  return out;
}

bool decode_meta(std::string_view text, Entry& out) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  auto action = parse_action(text.substr(0, colon));
  std::string_view category = text.substr(colon + 1);
  if (!action || category_error(category)) return false;
  out.action = *action;
  out.category.assign(category);
  return true;
}

}  // namespace herald::match::store
