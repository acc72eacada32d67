#pragma once
// Git template sources through the `git` command (which honours the user's
// credentials, SSH keys and proxies). A remote is cloned once, as a mirror,
// into CACHE/<hash of its URL>/mirror; each commit used is checked out once
// into CACHE/<hash>/trees/<commit>. The mirror is fetched again only on an
// explicit update or the first time a ref is asked for; otherwise the cache
// is used as it is, offline.

#include <filesystem>
#include <string>

#include "value/result.hpp"

namespace sindri::repo {

struct GitSource {
  std::string url;
  std::string ref;  // branch, tag or commit; empty: the remote's default branch
};

// $XDG_CACHE_HOME/sindri/repos, else ~/.cache/sindri/repos.
std::filesystem::path default_git_cache();

// Whether the cache holds a clone of `url` (looked at without running git).
bool git_cached(const std::string& url, const std::filesystem::path& cache_directory);

// The directory holding the files of `source` at its ref. Errors say what
// git said: a remote that cannot be reached with nothing cached, a ref it
// does not have, a command that took longer than `timeout_seconds`.
Result<std::filesystem::path> git_checkout(const GitSource& source, const std::filesystem::path& cache_directory,
                                           bool update, double timeout_seconds);

}  // namespace sindri::repo
