#pragma once
// JSON pointers (RFC 6901): writing a token into one, and following one.

#include <string>
#include <string_view>

#include "value/value.hpp"

namespace sindri {

// Appends `token` with `~` written as `~0` and `/` as `~1`.
void append_pointer_token(std::string& out, std::string_view token);
std::string escape_pointer_token(std::string_view token);
// `~1` back to `/` and `~0` back to `~`.
std::string unescape_pointer_token(std::string_view token);
// `base`, then `/` and the escaped token: the pointer to a child of `base`.
std::string pointer_child(std::string_view base, std::string_view token);

// The value an escaped pointer ("" or "/a/0/b~1c") leads to, or nullptr when
// the pointer is malformed or leads nowhere. Array indices are decimal, with
// no sign or leading zero.
const Value* follow_pointer(const Value& root, std::string_view pointer);

}  // namespace sindri
