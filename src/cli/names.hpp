#pragma once
// The names tables show for the ids API objects hold (a stack's generator,
// a target's stack), read once per command from what the PAK may see: an
// admin sees every live stack and generator, a generator its own stacks and
// itself, an agent the stacks it targets. The API serves no deleted stack
// or generator; an admin reads a deleted one's name from the audit log
// (the name it was created with).
//
// Only a read refused (403) or answered 404 makes a thing "not visible";
// any other failure (a 500, a broker gone, an answer that is not JSON) is
// kept as failure(), and a verb fails with it rather than show every row
// as deleted. A verb resolves its names before it prints anything, then
// checks failure().

#include <map>
#include <optional>
#include <string>

#include "cli/broker_client.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

class Names {
 public:
  explicit Names(BrokerClient& client) : client_(client) {}

  // "web", "web (deleted)", or "<deleted or not visible: ID>".
  std::string stack(const std::string& id);
  // The same for a generator.
  std::string generator(const std::string& id);
  // The live stack of `id` when the PAK sees it, else nullptr.
  const Value* live_stack(const std::string& id);
  // The generator of stack `id` as generator() names it: from the live
  // stack, or from a deleted one's creation in the audit log; "<none>" when
  // neither can be read.
  std::string stack_generator(const std::string& id);
  // Reads the names of the generators of `items` (API objects with a
  // generator_id: an array, or one object) before a table of them is
  // printed, so that a failed read fails the verb rather than show them as
  // deleted: failure() as an error.
  Status read_generators_of(const Value& items);
  // The first read that failed for another reason than the PAK's rights or
  // the thing's absence, naming the call: "cannot read ... (GET /stacks): ...".
  const std::optional<std::string>& failure() const { return failure_; }

 private:
  struct Kind {
    std::string name;                  // "stack"
    std::optional<std::map<std::string, Value>> live;  // by id, read once
    std::map<std::string, std::string> deleted;        // by id: the label shown
    std::map<std::string, Value> created;              // by id: a deleted one's audited creation details
  };
  const Value* live(Kind& kind, const std::string& id);
  std::string label(Kind& kind, const std::string& id);
  std::map<std::string, Value> read_live(const std::string& kind);
  // GET `path`; nullopt when it failed, the failure kept in failure_ unless
  // the answer was a 403 or 404 (nothing is read once failure_ is set).
  std::optional<Value> read(const std::string& path, const std::string& what);

  BrokerClient& client_;
  Kind stacks_{"stack", std::nullopt, {}, {}};
  Kind generators_{"generator", std::nullopt, {}, {}};
  bool audit_readable_ = true;
  std::optional<std::string> failure_;
};

}  // namespace sindri::cli
