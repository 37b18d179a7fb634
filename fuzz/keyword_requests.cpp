// Fuzz target: the keyword API's request bodies (gateway/api/keyword_requests)
// and the Redis store's invalidation messages and metadata
// (match/store/redis_schema, entry). The first byte picks the parser. Must
// never crash; a refusal must say why; what is accepted must round-trip.
#include "gateway/api/keyword_requests.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "match/store/entry.hpp"
#include "match/store/redis_schema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace kw = herald::match::store;
  if (size == 0) return 0;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      auto entries = herald::gateway::api::parse_keyword_add(in);
      if (!entries && entries.error().empty()) std::abort();
      break;
    }
    case 1: {
      auto keywords = herald::gateway::api::parse_keyword_remove(in);
      if (!keywords && keywords.error().empty()) std::abort();
      break;
    }
    case 2: {
      auto text = herald::gateway::api::parse_keyword_match(in);
      if (!text && text.error().empty()) std::abort();
      break;
    }
    case 3: {
      if (auto inv = kw::schema::parse_invalidation(in)) {
        if (inv->origin.empty() || kw::dictionary_name_error(inv->dict)) std::abort();
      }
      break;
    }
    default: {
      kw::Entry e;
      if (kw::decode_meta(in, e) && kw::encode_meta(e) != in) std::abort();
      break;
    }
  }
  return 0;
}
