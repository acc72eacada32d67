#include "repo/sources.hpp"

#include "repo/git.hpp"
#include "repo/problems.hpp"

namespace sindri::repo {

Result<std::vector<OpenSource>> open_sources(const Project& project, const SourceOptions& options) {
  std::vector<OpenSource> out;
  Problems problems;
  for (const SourceSpec& spec : project.sources) {
    OpenSource source{.spec = spec, .directory = {}, .hooks_trusted = true};
    switch (spec.type) {
      case SourceSpec::Type::Default:
        source.directory = options.default_repository;
        break;
      case SourceSpec::Type::Filesystem:
        source.directory = spec.location;
        break;
      case SourceSpec::Type::Git: {
        auto checkout = git_checkout(GitSource{spec.location, spec.ref}, options.cache_directory, options.update,
                                     options.git_timeout_seconds);
        if (!checkout) {
          problems.push_back(spec.where + ": template source " + spec.describe() + ": " + checkout.error().message);
          continue;
        }
        source.directory = std::move(checkout).value();
        source.hooks_trusted = spec.trusted;
        break;
      }
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(source.directory, ec)) {
      problems.push_back(spec.where + ": template source " + spec.describe() + ": no directory " +
                         source.directory.string());
      continue;
    }
    out.push_back(std::move(source));
  }
  if (!problems.empty()) return problems_error(problems);
  return out;
}

}  // namespace sindri::repo
