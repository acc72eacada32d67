#pragma once
// The context variables a template reads, found without rendering it: for
// `sindri lint`, which checks them against a parameter schema.

#include <string>
#include <vector>

#include "tera/tera.hpp"

namespace sindri::tera {

struct VariableRead {
  std::string name;      // the root: `image` for `image.tag`
  std::string path;      // as written: `image.tag`, `ports[0]`
  Location location;     // where the read is written
};

// Every read of a top-level context variable, in source order (bodies of
// macros after the rest). Names bound in the template are left out: for-loop
// variables and `loop` inside their loop, macro parameters inside their
// macro, and a name from `set` / `set_global` after the set, for as long as
// the renderer keeps it (a set in a loop body lasts until the loop ends, a
// set_global until the end of the template or macro). A set counts from
// where it is written even when it is inside an `if`: better to miss a read
// than to report one that never reaches the context. `__tera_context` is not
// a variable. Templates that this one includes, extends or imports are not
// followed.
std::vector<VariableRead> context_variables(const Template& tpl);

}  // namespace sindri::tera
