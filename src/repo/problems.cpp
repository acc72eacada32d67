#include "repo/problems.hpp"

namespace sindri::repo {

Error problems_error(const Problems& problems) {
  std::string message;
  for (const std::string& problem : problems) {
    if (!message.empty()) message += '\n';
    message += problem;
  }
  return make_error(std::move(message));
}

Problems problems_of(const Error& error) {
  Problems out;
  size_t start = 0;
  while (start <= error.message.size()) {
    const size_t end = error.message.find('\n', start);
    out.push_back(error.message.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace sindri::repo
