#pragma once
// Checks that report every problem at once: several problems travel as one
// Error, a line each, so that they pass through Result and SINDRI_TRY.

#include <string>
#include <vector>

#include "value/result.hpp"

namespace sindri::repo {

using Problems = std::vector<std::string>;

Error problems_error(const Problems& problems);
Problems problems_of(const Error& error);

}  // namespace sindri::repo
