#pragma once
// Who may do what to stacks and templates, beyond the identity kinds each
// route lets in (ApiRoute::allowed): ownership and targeting decide.

#include <string_view>

#include "broker/context.hpp"

namespace sindri::broker {

enum class StackAccess { Manage, Read };
// Admins may do anything to a stack, its owning generator may manage it, and
// for Read an agent that targets it may read it. Anyone else gets 403.
ApiResult<Ok> check_stack_access(store::Connection& connection, const Identity& caller, const Value& stack,
                                 StackAccess access);
// A deployment object the caller may read (StackAccess::Read of its stack).
// The stack may be deleted by now; its owner and its agents may still read
// the objects (the deletion marker among them).
ApiResult<Value> load_readable_object(store::Connection& connection, const Identity& caller, std::string_view id);

// A system template (no owner) only an admin may change; a generator's, that
// generator or an admin. Admins and generators may read any template.
ApiResult<Ok> check_template_change(const Identity& caller, const Value& tpl);
// The live template `id`, which the caller may change, read again under its
// name's lock: of two concurrent changes of one version the second finds it
// retired (404).
ApiResult<Value> load_template_for_change(store::Connection& connection, const Identity& caller, std::string_view id);
// Loads the live template `id` (404) and checks the caller may read it or,
// with `change`, change it (taking the name's lock).
ApiResult<Ok> check_template_access(store::Connection& connection, const Identity& caller, std::string_view id,
                                    bool change);

// A string member of a record object.
std::string_view field(const Value& record, std::string_view name);

}  // namespace sindri::broker
