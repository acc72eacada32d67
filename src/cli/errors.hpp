#pragma once
// The one way every verb reports a failure, a warning or a note on stderr,
// with kubectl's prefixes, so that all of sindri's messages read alike.

#include <string_view>

namespace sindri::cli {

// Prints "error: MESSAGE" on stderr.
void print_error(std::string_view message);

// Prints "warning: MESSAGE" on stderr.
void print_warning(std::string_view message);

// Prints "note: MESSAGE" on stderr: something the user may want to know
// about an outcome that is not wrong.
void print_note(std::string_view message);

// print_error, then returns exit_code: 1 for a failed call, 2 for a usage error.
int fail(std::string_view message, int exit_code = 1);

}  // namespace sindri::cli
