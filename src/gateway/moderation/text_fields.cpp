#include "gateway/moderation/text_fields.hpp"

#include <algorithm>

#include "core/json.hpp"

namespace herald::gateway::moderation {
namespace dom = simdjson::dom;

herald::Result<void, std::string> TextFields::collect(std::string_view data_json) {
  joined_.clear();
  starts_.clear();
  if (auto ec = parser_.parse(data_json.data(), data_json.size()).get(root_); ec) {
    return std::string(simdjson::error_message(ec));
  }
  gather(root_);
  return {};
}

void TextFields::gather(dom::element e) {
  switch (e.type()) {
    case dom::element_type::OBJECT:
      for (auto field : dom::object(e)) {
        add(field.key);  // write() takes the key's segment first, too
        gather(field.value);
      }
      break;
    case dom::element_type::ARRAY:
      for (dom::element v : dom::array(e)) gather(v);
      break;
    case dom::element_type::STRING:
      add(std::string_view(e));
      break;
    default:
      break;
  }
}

void TextFields::add(std::string_view text) {
  starts_.push_back(joined_.size());
  joined_.append(text);
  joined_.push_back('\0');
}

std::size_t TextFields::segment_of(std::size_t pos) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), pos);
  if (it == starts_.begin()) return size();
  auto i = static_cast<std::size_t>(it - starts_.begin()) - 1;
  std::size_t end = i + 1 < starts_.size() ? starts_[i + 1] - 1 : joined_.size() - 1;
  return pos < end ? i : size();
}

bool TextFields::within_one_value(std::size_t start, std::size_t end) const {
  if (end <= start) return false;
  std::size_t i = segment_of(start);
  return i != size() && segment_of(end - 1) == i;
}

std::string TextFields::masked_json(const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
  // The masked values, one string each.
  std::vector<std::string> values;
  values.reserve(starts_.size());
  auto span = spans.begin();
  for (std::size_t i = 0; i < starts_.size(); ++i) {
    std::size_t pos = starts_[i];
    std::size_t end = i + 1 < starts_.size() ? starts_[i + 1] - 1 : joined_.size() - 1;
    std::string v;
    for (; span != spans.end() && span->first < end; ++span) {
      v.append(joined_, pos, span->first - pos);
      // One '*' per code point: count the bytes that do not continue one.
      for (std::size_t k = span->first; k < span->second; ++k) {
        if ((static_cast<unsigned char>(joined_[k]) & 0xC0) != 0x80) v.push_back('*');
      }
      pos = span->second;
    }
    v.append(joined_, pos, end - pos);
    values.push_back(std::move(v));
  }
  std::string out;
  std::size_t next = 0;
  write(out, root_, next, values);
  return out;
}

void TextFields::write(std::string& out, dom::element e, std::size_t& next_value,
                       const std::vector<std::string>& values) const {
  switch (e.type()) {
    case dom::element_type::OBJECT: {
      out.push_back('{');
      bool first = true;
      for (auto field : dom::object(e)) {
        if (!first) out.push_back(',');
        first = false;
        json::append_string(out, values[next_value++]);  // the key, masked
        out.push_back(':');
        write(out, field.value, next_value, values);
      }
      out.push_back('}');
      break;
    }
    case dom::element_type::ARRAY: {
      out.push_back('[');
      bool first = true;
      for (dom::element v : dom::array(e)) {
        if (!first) out.push_back(',');
        first = false;
        write(out, v, next_value, values);
      }
      out.push_back(']');
      break;
    }
    case dom::element_type::STRING:
      json::append_string(out, values[next_value++]);
      break;
    default:
      out += simdjson::minify(e);  // numbers and literals, as the command parser wrote them
      break;
  }
}

}  // namespace herald::gateway::moderation
