#pragma once
// The broker's 422 template_stack_mismatch names the template and the stack
// by id alone; instantiate and `template render --stack` know their names.

#include <string>

#include "value/value.hpp"

namespace sindri::cli {

// `message`, the broker's error, said again with `tpl`'s name and version
// and `stack`'s name beside their ids when `error` (its JSON body) is a
// template_stack_mismatch; `message` as it is otherwise.
std::string name_mismatch(const std::string& message, const Value& error, const Value& tpl, const Value& stack);

}  // namespace sindri::cli
