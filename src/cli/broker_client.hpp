#pragma once
// What the verbs that talk to a broker (stack, apply, agent, template,
// instantiate, reconstruct) share: the connection flags, calls to the v1 API
// with the broker's errors turned into messages, finding a stack or a
// template by id or name, and kubectl-style output.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/parameters.hpp"
#include "http/client.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

struct BrokerFlags {
  std::string broker = "http://127.0.0.1:8080";
  std::string pak;
  std::string ca_file;
  bool insecure_skip_tls_verify = false;
  std::string output = "table";
};

// --broker (else SINDRI_BROKER), --pak (else SINDRI_PAK), --ca-file (else
// SINDRI_CA_FILE) and --insecure-skip-tls-verify (else
// SINDRI_INSECURE_SKIP_TLS_VERIFY=true); with_output adds -o table|yaml|json.
void add_broker_flags(CLI::App& command, BrokerFlags& flags, bool with_output = true);

class BrokerClient {
 public:
  // Fails, before any request is made, when no PAK was given: a usage error.
  static Result<BrokerClient> connect(const BrokerFlags& flags);

  // Calls under /api/v1. A 2xx answer gives its JSON body (null when empty).
  // Otherwise the error is the broker's ErrorResponse as
  // "MESSAGE (HTTP 403 forbidden)" (a message of several lines gets the
  // status at the end of its first), or, when the broker cannot be reached,
  // the reason with the URL.
  Result<Value> get(std::string_view path);
  Result<Value> post(std::string_view path, const Value& body);
  Result<Value> put(std::string_view path, const Value& body);
  Result<Value> remove(std::string_view path);
  // The JSON body of the last answer outside 2xx (null when it had none or
  // was not JSON), for callers that read its details.
  const Value& last_error() const { return last_error_; }
  // Whether the last failed call was refused for the caller's identity (403,
  // whatever the rule's code).
  bool last_refused() const { return last_status_ == 403; }
  // Whether the last failed call was answered 404: what it names does not
  // exist (or, for some routes, is not the caller's to see).
  bool last_not_found() const { return last_status_ == 404; }

  // Who the PAK belongs to (POST /auth/pak, asked once): {admin, agent,
  // generator}, the latter two an id or null.
  Result<Value> whoami();

  // Names match exactly, as Kubernetes names do; when none does but one
  // differs only in case, the error asks `did you mean "web"?`.

  // A stack by id (any text shaped as a UUID), or by name among the stacks
  // the PAK may list; an unknown or ambiguous name is an error naming it.
  // An id the PAK may not fetch alone is looked for in the list too.
  Result<Value> find_stack(const std::string& id_or_name);
  // An agent the same way, among the agents the PAK may list; an ambiguous
  // name's error gives each agent's cluster beside its id. An agent's PAK,
  // which may list none, finds the agent it belongs to.
  Result<Value> find_agent(const std::string& id_or_name);
  // A generator the same way: an admin lists them all; a generator's PAK
  // finds the generator it belongs to.
  Result<Value> find_generator(const std::string& id_or_name);

  // A live template by id, or by name (GET /templates?name=): a name that
  // two owners use is ambiguous, an error listing the candidates' ids.
  Result<Value> find_template(const std::string& id_or_name);

 private:
  explicit BrokerClient(std::unique_ptr<http::Client> http) : http_(std::move(http)) {}
  Result<Value> call(std::string_view method, std::string_view path, std::string_view body);
  // `self_field`: the field of whoami() naming the caller when it is one of
  // `kind` (and may then list none but itself).
  Result<Value> find_listed(const std::string& kind, const std::string& collection, const std::string& id_or_name,
                            std::string_view detail_field = {}, std::string_view self_field = {});
  // The caller itself, as one item of `collection`, when whoami()'s
  // `self_field` names one; null otherwise.
  Result<Value> self_as(const std::string& collection, std::string_view self_field);

  std::unique_ptr<http::Client> http_;
  std::optional<Value> whoami_;
  Value last_error_;
  int last_status_ = 0;
};

// Whether `error`, a broker's ErrorResponse body, carries the code `code`.
bool has_error_code(const Value& error, std::string_view code);

// A field of an API object as a table cell: a string as it is, a missing or
// null field as "<none>", anything else as compact JSON.
std::string cell(const Value& object, std::string_view key);

// Whether a DeploymentObject is a deletion marker: its YAML names what the
// agents remove.
bool is_deletion_marker(const Value& object);

struct Column {
  std::string header;  // upper case, as kubectl's
  std::function<std::string(const Value&)> cell;
  bool wide = false;  // shown only with -o wide
};

// The table form of an answer holding a PAK the broker shows only once:
// `done`, then the PAK in `answer`'s `pak_field`, which `who` ("agent",
// "generator") authenticates with.
std::string with_pak(const std::string& done, const Value& answer, std::string_view pak_field, std::string_view who);

// The error for a name that no item of `names` has exactly: "KIND "NAME"
// not found", or, when names differ from it only in case, `no KIND named
// "Web"; did you mean "web"?`.
std::string name_not_found(std::string_view kind, const std::string& name, const std::vector<std::string>& names);

// Whether -o asks for a table: `table` (the default) or `wide`.
bool is_table_output(const std::string& output);

// One row per item of `items` (an array, or one object), columns aligned
// with two spaces, headers first; the wide columns only when `output` is
// wide.
std::string format_table(const std::vector<Column>& columns, const Value& items, const std::string& output = "table");

// Prints `value` as -o asks: json and yaml as the API gave it, table and
// wide as `human(value)` makes it. Returns the exit code.
int print_result(const Value& value, const std::string& output, const std::function<std::string(const Value&)>& human);

// A list as print_result prints it in a table of `columns` (with the wide
// ones for -o wide); an empty table is "No WHAT found." on stderr instead,
// as kubectl says it.
int print_list(const Value& items, const std::string& output, const std::vector<Column>& columns,
               std::string_view what);

// `message`, the broker's error, with each violation of a 400
// invalid_parameters answer (`error`, its JSON body) located in the values
// files as locate_violation does; `message` alone for any other error.
std::string locate_broker_violations(const std::string& message, const Value& error, const Value& values,
                                     const std::vector<ValuesFile>& files);

}  // namespace sindri::cli
