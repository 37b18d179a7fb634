#include "gateway/auth/claim_pattern.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>

namespace herald::gateway::auth {

// The compiled code and the match context that carries the bounds; both
// read-only once made, so one is shared by every thread.
struct ClaimPattern::Compiled {
  Compiled(pcre2_code* c, pcre2_match_context* m) : code(c), context(m) {}
  ~Compiled() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
  Compiled(const Compiled&) = delete;
  Compiled& operator=(const Compiled&) = delete;
  pcre2_code* code;
  pcre2_match_context* context;
};

ClaimPattern::ClaimPattern(std::shared_ptr<const Compiled> compiled)
    : compiled_(std::move(compiled)) {}

std::variant<ClaimPattern, std::string> ClaimPattern::compile(std::string_view pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  // Safety: PCRE2_SPTR is const unsigned char*, the pattern's bytes as they are.
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF, &error, &offset, nullptr);
  if (code == nullptr) {
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(error, message.data(), message.size());
    // Safety: PCRE2_UCHAR is unsigned char; the message is NUL-terminated text.
    return std::string(reinterpret_cast<const char*>(message.data())) + " at offset " +
           std::to_string(offset);
  }
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  if (context == nullptr) {
    pcre2_code_free(code);
    return std::string("out of memory");
  }
  pcre2_set_match_limit(context, kMatchLimit);
  pcre2_set_depth_limit(context, kDepthLimit);
  return ClaimPattern(std::make_shared<const Compiled>(code, context));
}

bool ClaimPattern::matches(std::string_view claim) const {
  if (claim.size() > kMaxSubjectBytes) return false;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(compiled_->code, nullptr);
  if (data == nullptr) return false;
  // Safety: as in compile, the claim's bytes. PCRE2_NO_UTF_CHECK is not
  // passed: a claim that is not UTF-8 is an error, so no match.
  const int rc = pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(claim.data()),
                             claim.size(), 0, 0, data, compiled_->context);
  pcre2_match_data_free(data);
  return rc >= 0;
}

}  // namespace herald::gateway::auth
