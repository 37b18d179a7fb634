// Base64 as tokens and Centrifugo's fields use it (RFC 4648): base64url
// without padding for the three parts of a JWT, standard base64 for
// Centrifugo's b64 fields, and the pairing of a JSON field with its base64
// twin that its tokens and server API share ("info" and "b64info", "data"
// and "b64data": the twin carries the same JSON for clients that hold it as
// bytes). Decoding is strict: a character outside the alphabet, an
// impossible length or non-zero padding bits is refused, so one text never
// decodes two ways.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

namespace herald::gateway::auth {

// RFC 4648 base64url without padding. decode returns nullopt on any
// character outside the alphabet or an impossible length.
[[nodiscard]] std::string base64url_encode(std::string_view bytes);
[[nodiscard]] std::optional<std::string> base64url_decode(std::string_view text);
// RFC 4648 standard base64, padded or not (Centrifugo's b64 fields:
// b64info, b64data); nullopt as base64url_decode.
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

// A JSON field of `obj` or its base64 twin: `field` as compact JSON, else
// "b64" + `field` decoded from standard base64 as JSON (read, into `out`),
// else absent (`out` untouched); bad when the twin is not a string of
// standard base64 of JSON.
enum class JsonField { absent, read, bad };
[[nodiscard]] JsonField json_or_base64(simdjson::dom::object obj, std::string_view field,
                                       std::string& out);

}  // namespace herald::gateway::auth
