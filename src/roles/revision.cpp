#include "roles/revision.hpp"

namespace sindri::roles {

const Revision* RevisionHistory::find(int64_t number) const {
  for (const Revision& revision : revisions) {
    if (revision.number == number) return &revision;
  }
  return nullptr;
}

RoleResult<RevisionHistory> apply(RevisionHistory history, const Value& spec) {
  SINDRI_TRY(roles, resolve_roles(spec));
  Revision next;
  next.hash = content_hash(spec);
  const Revision* current = history.current();
  if (current && current->hash == next.hash) return history;
  next.number = current ? current->number + 1 : 1;
  next.spec = spec;
  for (const ResolvedRole& role : roles) next.role_hashes.emplace_back(role.name, role.hash);
  history.revisions.push_back(std::move(next));
  if (history.revisions.size() > kRevisionHistoryLimit) {
    history.revisions.erase(history.revisions.begin(),
                            history.revisions.end() - static_cast<std::ptrdiff_t>(kRevisionHistoryLimit));
  }
  return history;
}

RoleResult<RevisionHistory> rollback(RevisionHistory history, int64_t number) {
  const Revision* target = history.find(number);
  if (!target) {
    return RoleError{"", "", "revision " + std::to_string(number) + " is not in the history (the last " +
                                 std::to_string(kRevisionHistoryLimit) + " revisions are kept)"};
  }
  const Value spec = target->spec;
  return apply(std::move(history), spec);
}

Value controller_revision(const Revision& revision, std::string_view group) {
  Object labels;
  for (const auto& [role, hash] : revision.role_hashes) labels.push_back({Value(revision_hash_label(role)), Value(hash)});
  const std::string name = std::string(group) + "-" + revision.hash + "-" + std::to_string(revision.number);
  return Value(Object{
      {Value("apiVersion"), Value("apps/v1")},
      {Value("kind"), Value("ControllerRevision")},
      {Value("metadata"), Value(Object{{Value("name"), Value(name)}, {Value("labels"), Value(std::move(labels))}})},
      {Value("revision"), Value(static_cast<long>(revision.number))},
      {Value("data"), Value(Object{{Value("spec"), revision.spec}})},
  });
}

}  // namespace sindri::roles
