#include "repo/git.hpp"

#include <cstdlib>
#include <fstream>

#include "process/process.hpp"
#include "value/digest.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

// Never a prompt for a password: an unreachable remote fails at once.
const std::vector<std::string> kGitEnvironment = {"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true"};

// git's output on success, else an error with what it printed on stderr.
// A remote that stops answering must not hang a CI job: the whole command
// has `timeout_seconds`.
Result<std::string> git(std::vector<std::string> arguments, double timeout_seconds) {
  arguments.insert(arguments.begin(), "git");
  const std::string command = arguments[1] == "clone" ? "clone" : arguments[2];
  SINDRI_TRY(outcome, run_process(ProcessRequest{.argv = std::move(arguments), .input = {}, .directory = {},
                                                 .timeout_seconds = timeout_seconds,
                                                 .extra_environment = kGitEnvironment,
                                                 .withheld_environment = {},
                                                 .max_output_bytes = 0}));
  if (outcome.timed_out) {
    return make_error("git " + command + " did not finish within " + seconds_text(timeout_seconds) +
                      " s (--git-timeout)");
  }
  if (outcome.exit_code != 0) {
    return make_error(trimmed_output(outcome.err.empty() ? outcome.out : outcome.err));
  }
  return trimmed_output(outcome.out);
}

std::string short_hash(std::string_view text) { return sha256_hex(text).substr(0, 16); }

}  // namespace

fs::path default_git_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "sindri" / "repos";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".cache" / "sindri" / "repos";
}

bool git_cached(const std::string& url, const fs::path& cache_directory) {
  std::error_code ec;
  return fs::exists(cache_directory / short_hash(url) / "mirror" / "HEAD", ec);
}

Result<fs::path> git_checkout(const GitSource& source, const fs::path& cache_directory, bool update,
                             double timeout_seconds) {
  const fs::path root = cache_directory / short_hash(source.url);
  const fs::path mirror = root / "mirror";
  const fs::path ref_record = root / "refs" / short_hash(source.ref);
  std::error_code ec;
  bool fresh = false;
  if (!fs::exists(mirror / "HEAD", ec)) {
    fs::create_directories(root, ec);
    const fs::path incoming = root / "mirror.incoming";
    fs::remove_all(incoming, ec);
    if (auto cloned = git({"clone", "--mirror", "--quiet", "--", source.url, incoming.string()}, timeout_seconds); !cloned) {
      fs::remove_all(incoming, ec);
      return make_error("cannot clone " + source.url + " and nothing is cached: " + cloned.error().message);
    }
    fs::rename(incoming, mirror, ec);
    if (ec) return make_error("cannot keep the clone of " + source.url + " in " + mirror.string() + ": " + ec.message());
    fresh = true;
  }
  const std::string git_dir = "--git-dir=" + mirror.string();
  std::string fetch_failure;
  if (!fresh && (update || !fs::exists(ref_record, ec))) {
    if (auto fetched = git({git_dir, "fetch", "--prune", "--quiet", "origin"}, timeout_seconds); !fetched) {
      fetch_failure = fetched.error().message;
    }
  }
  if (update && !fetch_failure.empty()) return make_error("cannot fetch " + source.url + ": " + fetch_failure);
  const std::string wanted = (source.ref.empty() ? std::string("HEAD") : source.ref) + "^{commit}";
  auto commit = git({git_dir, "rev-parse", "--verify", "--quiet", "--end-of-options", wanted}, timeout_seconds);
  if (!commit || commit->empty()) {
    std::string message = "no branch, tag or commit `" + source.ref + "` in " + source.url;
    if (!fetch_failure.empty()) message += " (and it cannot be fetched: " + fetch_failure + ")";
    return make_error(message);
  }
  const fs::path tree = root / "trees" / *commit;
  if (!fs::exists(tree / ".git", ec)) {
    fs::remove_all(tree, ec);
    fs::create_directories(tree.parent_path(), ec);
    if (auto added = git({git_dir, "worktree", "add", "--detach", "--force", "--quiet", tree.string(), *commit}, timeout_seconds);
        !added) {
      fs::remove_all(tree, ec);
      return make_error("cannot check out " + *commit + " of " + source.url + ": " + added.error().message);
    }
  }
  fs::create_directories(ref_record.parent_path(), ec);
  std::ofstream(ref_record) << *commit << '\n';
  return tree;
}

}  // namespace sindri::repo
