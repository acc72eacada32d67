#pragma once
// The console (ui/, a static single-page application) at /ui/: its files
// from ui.directory when that is set, else from the copy embedded at build
// time. Anyone may fetch them: the console signs in with a PAK against the
// API like any other client.

#include <string>
#include <string_view>

#include "http/server.hpp"

namespace sindri::broker {

// "/ui" and every path under "/ui/".
bool is_console_path(std::string_view path);

// The answer to a GET or HEAD of a console path: "/ui" redirects to "/ui/",
// which is index.html; a file under assets/ (Vite's content-hashed names) is
// cached for good, anything else revalidated. 404 for what is not there, and
// for a path that tries to leave the directory.
http::Response serve_console(const http::Request& request, const std::string& directory);

}  // namespace sindri::broker
