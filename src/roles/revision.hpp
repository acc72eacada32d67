#pragma once
// The revision history of a RoleBasedGroup, as KEP-8's ControllerRevision
// table describes it, as pure functions over values:
//  - every change of the spec adds a revision numbered one more than the
//    last; applying the spec of the current revision changes nothing;
//  - re-applying an older spec (a rollback) adds a NEW revision carrying the
//    old content: same spec hash and role hashes, next number;
//  - only the last kRevisionHistoryLimit revisions are kept.
// On a cluster each revision is a ControllerRevision named
// GROUP-SPECHASH-NUMBER (controller_revision below).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "roles/roles.hpp"

namespace sindri::roles {

inline constexpr size_t kRevisionHistoryLimit = 5;

struct Revision {
  int64_t number = 0;  // 1 for the first revision
  std::string hash;    // content_hash of the whole spec (roleTemplates included)
  Value spec;
  // Each role's revision hash, in the order of spec.roles.
  std::vector<std::pair<std::string, std::string>> role_hashes;
};

struct RevisionHistory {
  std::vector<Revision> revisions;  // oldest first; the last is the current one
  const Revision* current() const { return revisions.empty() ? nullptr : &revisions.back(); }
  const Revision* find(int64_t number) const;
};

// The history after applying `spec` (a RoleBasedGroup spec); an invalid spec
// is an error and leaves no revision.
RoleResult<RevisionHistory> apply(RevisionHistory history, const Value& spec);

// Re-applies the spec of revision `number`, which must still be in the
// history, as a new revision.
RoleResult<RevisionHistory> rollback(RevisionHistory history, int64_t number);

// The apps/v1 ControllerRevision that stores `revision` of group `group`:
// named GROUP-HASH-NUMBER, `revision: NUMBER`, `data: {spec: SPEC}`, and
// labelled with each role's role-revision-hash-ROLE.
Value controller_revision(const Revision& revision, std::string_view group);

}  // namespace sindri::roles
