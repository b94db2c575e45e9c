// The dashboard's files (its page, script, style sheet and Chart.js),
// embedded into the binary at build time by cmake/embed_assets.cmake, which
// generates the definition of EmbeddedAssets: the server reads no file at
// run time.
#pragma once

#include <span>
#include <string_view>

namespace kbench::server::http {

struct Asset {
  // The URL path it is served at, e.g. "/app.js".
  std::string_view path;
  std::string_view content_type;
  std::string_view body;
};

std::span<const Asset> EmbeddedAssets();

}  // namespace kbench::server::http
