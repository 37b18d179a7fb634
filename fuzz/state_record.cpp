// Fuzz target: a membership record as the state store reads it back from
// disk (state/record.cpp). Must never crash or read past the bytes; a
// record it accepts must encode back to exactly the same bytes, so there is
// one way to write each membership and a damaged one is refused.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "state/record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto m = herald::state::decode_record(in);
  if (m && herald::state::encode_record(*m) != in) std::abort();
  return 0;
}
