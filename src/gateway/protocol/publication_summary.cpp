#include "gateway/protocol/publication_summary.hpp"

#include <simdjson.h>

#include "gateway/protocol/encode.hpp"

namespace herald::gateway::protocol {
namespace {

std::string cut_preview(std::string_view s) {
  if (s.size() <= kPreviewBytes) return std::string(s);
  std::size_t n = kPreviewBytes;
  // Back up over continuation bytes (10xxxxxx) so a code point stays whole.
  // Safety: a char read as its byte, to test the UTF-8 continuation bits.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "…";
}

}  // namespace

const PublicationSummary& summarize_publication(const fanout::MessagePtr& push) {
  thread_local fanout::MessagePtr last;
  thread_local PublicationSummary summary;
  if (last == push) return summary;
  last = push;
  summary = PublicationSummary{};
  thread_local simdjson::dom::parser parser;
  const std::string_view json = publication_in_push(push->text);
  simdjson::dom::element doc;
  std::string_view room;
  simdjson::dom::element data;
  if (parser.parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS ||
      doc["room"].get(room) != simdjson::SUCCESS || doc["data"].get(data) != simdjson::SUCCESS) {
    return summary;  // the server encoded it; cannot happen
  }
  summary.valid = true;
  summary.room = std::string(room);
  summary.position = stream_position_in_push(push->text);
  std::string_view sender;
  if (doc["info"]["user"].get(sender) == simdjson::SUCCESS) summary.sender = std::string(sender);
  std::string_view text;
  std::string_view rename;
  if (data.is_object() && data["rename"].get(rename) == simdjson::SUCCESS) {
    summary.kind = PublicationSummary::Kind::rename;
    summary.rename = std::string(rename);
    summary.preview = "renamed the room to " + cut_preview(rename);
  } else if ((data.is_object() && data["text"].get(text) == simdjson::SUCCESS) ||
             data.get(text) == simdjson::SUCCESS) {
    // Mentions count only in data.text; a bare string previews alike.
    summary.kind =
        data.is_object() ? PublicationSummary::Kind::text : PublicationSummary::Kind::other;
    summary.text = std::string(text);
    summary.preview = cut_preview(text);
  } else {
    summary.preview = cut_preview(simdjson::minify(data));
  }
  return summary;
}

}  // namespace herald::gateway::protocol
