// The web app (web/ in the source tree) compiled into the binary: heraldd
// serves it from memory at / with no path to configure. The table is
// generated at build time by cmake/EmbedFiles.cmake.
#pragma once

#include <span>
#include <string_view>

namespace herald::web {

struct Asset {
  std::string_view path;          // URL path, e.g. "/app.js" ("/index.html" is also served at "/")
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view body;
};

[[nodiscard]] std::span<const Asset> assets();

}  // namespace herald::web
