#include "cli/broker_client.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "value/json.hpp"
#include "value/uuid.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

constexpr std::string_view kApiPrefix = "/api/v1";

// A body that is not an ErrorResponse (a proxy's HTML page, say): its first
// line, kept short.
std::string excerpt(std::string_view body) {
  body = body.substr(0, body.find('\n'));
  constexpr size_t kLongest = 200;
  if (body.size() > kLongest) return std::string(body.substr(0, kLongest)) + "...";
  return std::string(body);
}

int64_t version_of(const Value& tpl) {
  const Value* version = tpl.find("version");
  return version != nullptr && version->is_int() ? version->get_int() : 0;
}

// `error`: the body as JSON, null when it is not.
std::string describe_failure(int status, std::string_view body, const Value& error) {
  const std::string http = "HTTP " + std::to_string(status);
  if (error.is_object()) {
    const Value* message = error.find("message");
    const Value* code = error.find("code");
    if (message && message->is_string()) {
      std::string suffix = " (" + http;
      if (code && code->is_string()) suffix += " " + std::string(code->get_string());
      suffix += ")";
      // "LIST HEAD:\n  item..." reads "LIST HEAD (HTTP 400 code):\n  item...".
      std::string out(message->get_string());
      size_t first_line_end = std::min(out.find('\n'), out.size());
      if (first_line_end < out.size() && first_line_end > 0 && out[first_line_end - 1] == ':') --first_line_end;
      return out.insert(first_line_end, suffix);
    }
  }
  if (body.empty()) return "the broker answered " + http + " with no body";
  return "the broker answered " + http + ": " + excerpt(body);
}

// Columns a text takes in a terminal: UTF-8 continuation bytes take none.
size_t display_width(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return text;
}

// The broker's base URL is http or https, and every call adds the API's
// prefix itself.
void check_broker_url(const std::string& url, const std::string& source) {
  const std::string lower = lower_case(url);
  const std::string_view scheme_end = "://";
  const size_t host_start = lower.find(scheme_end);
  const std::string_view scheme = std::string_view(lower).substr(0, host_start);
  if (host_start == std::string::npos || (scheme != "http" && scheme != "https")) {
    throw CLI::ValidationError(source, "`" + url + "` is not an http:// or https:// URL");
  }
  std::string path = lower.substr(host_start + scheme_end.size());
  path = path.find('/') == std::string::npos ? "" : path.substr(path.find('/'));
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.ends_with(kApiPrefix)) {
    throw CLI::ValidationError(source, "`" + url + "` names the API itself: give the broker's URL without " +
                                               std::string(kApiPrefix) + ", which every call adds");
  }
}

}  // namespace

void add_broker_flags(CLI::App& command, BrokerFlags& flags, bool with_output) {
  // The environment is read once this command is parsed, and only for a flag
  // it was not given: sibling commands share `flags`, and CLI11's envname
  // would let a sibling's reading of it overwrite the flag typed here.
  CLI::Option* broker = command.add_option("--broker", flags.broker,
                                           "URL of the broker (else $SINDRI_BROKER, else " + flags.broker + ")");
  CLI::Option* pak =
      command.add_option("--pak", flags.pak,
                         "PAK (prefixed API key) of an admin, a generator or an agent (else $SINDRI_PAK)");
  CLI::Option* ca_file = command.add_option(
      "--ca-file", flags.ca_file,
      "PEM file of CA certificates an https:// broker's certificate may chain to, besides the system's "
      "(else $SINDRI_CA_FILE)");
  CLI::Option* insecure = command.add_flag(
      "--insecure-skip-tls-verify", flags.insecure_skip_tls_verify,
      "Take any certificate from an https:// broker, unchecked: anyone on the way can read the PAK "
      "(else $SINDRI_INSECURE_SKIP_TLS_VERIFY=true)");
  command.parse_complete_callback([&flags, broker, pak, ca_file, insecure] {
    const auto from_environment = [](CLI::Option* option, const char* name, std::string& value) {
      if (option->count() > 0) return;
      if (const char* set = std::getenv(name); set != nullptr && *set != '\0') value = set;
    };
    from_environment(broker, "SINDRI_BROKER", flags.broker);
    from_environment(pak, "SINDRI_PAK", flags.pak);
    from_environment(ca_file, "SINDRI_CA_FILE", flags.ca_file);
    std::string skip_verify;
    from_environment(insecure, "SINDRI_INSECURE_SKIP_TLS_VERIFY", skip_verify);
    if (skip_verify == "true") {
      flags.insecure_skip_tls_verify = true;
    } else if (!skip_verify.empty() && skip_verify != "false") {
      throw CLI::ValidationError("SINDRI_INSECURE_SKIP_TLS_VERIFY",
                                 "expected true or false, got `" + skip_verify + "`");
    }
    check_broker_url(flags.broker, broker->count() > 0 ? "--broker" : "SINDRI_BROKER");
  });
  if (with_output) {
    command.add_option("-o,--output", flags.output, "table, wide (a table with more columns), yaml or json")
        ->check(CLI::IsMember({"table", "wide", "yaml", "json"}))
        ->capture_default_str();
  }
}

Result<BrokerClient> BrokerClient::connect(const BrokerFlags& flags) {
  if (flags.pak.empty()) return make_error("no PAK given: pass --pak or set SINDRI_PAK");
  // It goes into a header line: a CR or LF (a PAK file with Windows line
  // ends) would end that line and start another.
  if (std::any_of(flags.pak.begin(), flags.pak.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return make_error("the PAK holds a control character (a line end copied from a file?): check --pak or SINDRI_PAK");
  }
  // A PAK copied from an Authorization header keeps its scheme.
  std::string_view pak = flags.pak;
  constexpr std::string_view kScheme = "bearer ";
  if (pak.size() > kScheme.size() &&
      std::equal(kScheme.begin(), kScheme.end(), pak.begin(),
                 [](char expected, char given) { return expected == std::tolower(static_cast<unsigned char>(given)); })) {
    pak.remove_prefix(kScheme.size());
  }
  auto http = std::make_unique<http::Client>(flags.broker);
  http->set_authorization("Bearer " + std::string(pak));
  if (!flags.ca_file.empty()) http->set_ca_file(flags.ca_file);
  if (flags.insecure_skip_tls_verify) {
    http::Client::TlsSettings unverified;
    unverified.insecure_skip_verify = true;
    http->set_tls(std::move(unverified));
  }
  http->set_untrusted_certificate_advice("give its CA with --ca-file or SINDRI_CA_FILE");
  return BrokerClient(std::move(http));
}

Result<Value> BrokerClient::get(std::string_view path) { return call("GET", path, {}); }

Result<Value> BrokerClient::post(std::string_view path, const Value& body) { return call("POST", path, to_json(body)); }

Result<Value> BrokerClient::put(std::string_view path, const Value& body) { return call("PUT", path, to_json(body)); }

Result<Value> BrokerClient::remove(std::string_view path) { return call("DELETE", path, {}); }

Result<Value> BrokerClient::call(std::string_view method, std::string_view path, std::string_view body) {
  std::string target(kApiPrefix);
  target += path;
  auto response = http_->request(method, target, body);
  if (!response) {
    // No answer: no status, so last_refused() and last_not_found() say no.
    last_status_ = 0;
    last_error_ = Value();
    return make_error("cannot reach the broker: " + response.error().message);
  }
  if (response->status < 200 || response->status > 299) {
    auto error = parse_json(response->body);
    last_error_ = error.ok() ? std::move(error).value() : Value();
    last_status_ = response->status;
    return make_error(describe_failure(response->status, response->body, last_error_));
  }
  if (response->body.empty()) return Value();
  auto parsed = parse_json(response->body);
  if (!parsed) {
    last_status_ = 0;
    last_error_ = Value();
    return make_error("the broker's answer to " + std::string(method) + " " + target +
                      " is not JSON: " + parsed.error().describe());
  }
  return std::move(parsed).value();
}

Result<Value> BrokerClient::whoami() {
  if (!whoami_) {
    SINDRI_TRY(identity, post("/auth/pak", Value(Object{})));
    whoami_ = std::move(identity);
  }
  return *whoami_;
}

Result<Value> BrokerClient::find_stack(const std::string& id_or_name) {
  return find_listed("stack", "/stacks", id_or_name);
}

Result<Value> BrokerClient::find_agent(const std::string& id_or_name) {
  return find_listed("agent", "/agents", id_or_name, "cluster_name", "agent");
}

Result<Value> BrokerClient::find_generator(const std::string& id_or_name) {
  return find_listed("generator", "/generators", id_or_name, {}, "generator");
}

Result<Value> BrokerClient::self_as(const std::string& collection, std::string_view self_field) {
  SINDRI_TRY(identity, whoami());
  const Value* self_id = identity.find(self_field);
  if (self_id == nullptr || !self_id->is_string()) return Value();
  return get(collection + "/" + std::string(self_id->get_string()));
}

Result<Value> BrokerClient::find_listed(const std::string& kind, const std::string& collection,
                                        const std::string& id_or_name, std::string_view detail_field,
                                        std::string_view self_field) {
  const bool by_id = is_uuid(id_or_name);
  if (by_id) {
    auto found = get(collection + "/" + id_or_name);
    // A generator may list the agents registered with it, not fetch one;
    // and a name may look like an id.
    if (found || !(last_refused() || has_error_code(last_error_, kind + "_not_found"))) {
      return found;
    }
  }
  auto listed = get(collection);
  const bool refused = !listed && last_refused();
  bool only_self = false;
  if (refused && !self_field.empty()) {
    // An agent's PAK lists no agents, a generator's no generators, yet
    // each may read itself.
    auto self = self_as(collection, self_field);
    if (!self) return self;
    only_self = self->is_object();
    if (only_self) listed = Value(Array{std::move(self).value()});
  }
  if (!listed) {
    if (by_id || !refused) return listed;
    return make_error(listed.error().message + "; this PAK cannot look " + kind + "s up by name: give the " + kind +
                      "'s id");
  }
  const std::string id = by_id ? stored_uuid(id_or_name) : std::string();
  std::vector<const Value*> matching;
  std::vector<std::string> names;
  for (size_t i = 0; i < listed->size(); ++i) {
    const Value& item = *listed->at(i);
    names.push_back(cell(item, "name"));
    if (cell(item, "name") == id_or_name || (by_id && cell(item, "id") == id)) matching.push_back(&item);
  }
  if (matching.empty()) {
    std::string message =
        by_id ? kind + " " + id_or_name + " not found" : name_not_found(kind, id_or_name, names);
    if (only_self) {
      message += " (this PAK is " + kind + " " + names.front() + "'s and may see no other " + kind + ")";
    }
    return make_error(message);
  }
  if (matching.size() > 1) {
    std::string ids;
    for (const Value* found : matching) {
      ids += (ids.empty() ? "" : ", ") + cell(*found, "id");
      if (!detail_field.empty()) ids += " (" + std::string(detail_field) + " " + cell(*found, detail_field) + ")";
    }
    return make_error(kind + " name \"" + id_or_name + "\" is ambiguous: " + kind + "s " + ids + " have it; give an id");
  }
  return *matching.front();
}

Result<Value> BrokerClient::find_template(const std::string& id_or_name) {
  if (is_uuid(id_or_name)) {
    auto found = get("/templates/" + id_or_name);
    // A name may look like an id.
    if (found || !has_error_code(last_error_, "template_not_found")) return found;
  }
  auto templates = get("/templates?all_versions=false&name=" + http::percent_encode(id_or_name));
  if (!templates) return templates;
  if (templates->size() == 0) {
    // The broker matches names exactly: a near miss in case needs them all.
    std::vector<std::string> names;
    if (auto all = get("/templates?all_versions=false"); all && all->is_array()) {
      for (const Value& found : all->get_array()) names.push_back(cell(found, "name"));
    }
    return make_error(name_not_found("template", id_or_name, names));
  }
  // A name means its newest live version; owners (a generator, or none for a
  // system template) keep names apart, so a name two owners use is ambiguous.
  std::vector<const Value*> newest_per_owner;
  for (const Value& found : templates->get_array()) {
    const std::string owner = cell(found, "generator_id");
    auto same_owner = std::find_if(newest_per_owner.begin(), newest_per_owner.end(),
                                   [&](const Value* kept) { return cell(*kept, "generator_id") == owner; });
    if (same_owner == newest_per_owner.end()) {
      newest_per_owner.push_back(&found);
    } else if (version_of(found) > version_of(**same_owner)) {
      *same_owner = &found;
    }
  }
  if (newest_per_owner.size() > 1) {
    std::string candidates;
    for (const Value* found : newest_per_owner) {
      const std::string owner = cell(*found, "generator_id");
      candidates += (candidates.empty() ? "" : ", ") + cell(*found, "id") +
                    (owner == "<none>" ? " (system)" : " (generator " + owner + ")");
    }
    return make_error("template name \"" + id_or_name + "\" is ambiguous: templates " + candidates +
                      " have it; give an id");
  }
  return *newest_per_owner.front();
}

bool has_error_code(const Value& error, std::string_view code) {
  const Value* found = error.is_object() ? error.find("code") : nullptr;
  return found && found->is_string() && found->get_string() == code;
}

std::string cell(const Value& object, std::string_view key) {
  const Value* value = object.find(key);
  if (!value || value->is_null()) return "<none>";
  if (value->is_string()) return std::string(value->get_string());
  return to_json(*value);
}

std::string with_pak(const std::string& done, const Value& answer, std::string_view pak_field, std::string_view who) {
  return done + "PAK (shown only now; the " + std::string(who) + " authenticates with it): " + cell(answer, pak_field) +
         "\n";
}

std::string name_not_found(std::string_view kind, const std::string& name, const std::vector<std::string>& names) {
  std::vector<std::string> near;
  for (const std::string& candidate : names) {
    if (lower_case(candidate) == lower_case(name) && std::find(near.begin(), near.end(), candidate) == near.end()) {
      near.push_back(candidate);
    }
  }
  if (near.empty()) return std::string(kind) + " \"" + name + "\" not found";
  std::string suggestions;
  for (const std::string& candidate : near) suggestions += (suggestions.empty() ? "\"" : " or \"") + candidate + "\"";
  return "no " + std::string(kind) + " named \"" + name + "\"; did you mean " + suggestions + "?";
}

bool is_deletion_marker(const Value& object) {
  const Value* marker = object.find("is_deletion_marker");
  return marker != nullptr && marker->is_bool() && marker->get_bool();
}

bool is_table_output(const std::string& output) { return output == "table" || output == "wide"; }

std::string format_table(const std::vector<Column>& all_columns, const Value& items, const std::string& output) {
  std::vector<const Column*> columns;
  for (const Column& column : all_columns) {
    if (!column.wide || output == "wide") columns.push_back(&column);
  }
  std::vector<std::vector<std::string>> rows(1);
  for (const Column* column : columns) rows.front().push_back(column->header);
  auto add_row = [&](const Value& item) {
    std::vector<std::string>& row = rows.emplace_back();
    for (const Column* column : columns) row.push_back(column->cell(item));
  };
  if (items.is_array()) {
    for (const Value& item : items.get_array()) add_row(item);
  } else {
    add_row(items);
  }
  std::vector<size_t> widths(columns.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      // The last column is not padded: no line ends in spaces.
      if (i + 1 < row.size()) out.append(widths[i] - display_width(row[i]) + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

int print_result(const Value& value, const std::string& output, const std::function<std::string(const Value&)>& human) {
  std::string text;
  if (output == "json") {
    text = to_json_pretty(value) + "\n";
  } else if (output == "yaml") {
    text = to_yaml(value);
  } else {
    text = human(value);
  }
  return write_stdout(text) ? 0 : fail("cannot write the output");
}

int print_list(const Value& items, const std::string& output, const std::vector<Column>& columns,
               std::string_view what) {
  if (is_table_output(output) && items.size() == 0) {
    const std::string text = "No " + std::string(what) + " found.\n";
    std::fwrite(text.data(), 1, text.size(), stderr);
    return 0;
  }
  return print_result(items, output, [&](const Value& list) { return format_table(columns, list, output); });
}

std::string locate_broker_violations(const std::string& message, const Value& error, const Value& values,
                                     const std::vector<ValuesFile>& files) {
  const Value* details = error.is_object() ? error.find("details") : nullptr;
  const Value* violations = details != nullptr ? details->find("violations") : nullptr;
  if (!has_error_code(error, "invalid_parameters") || violations == nullptr || !violations->is_array()) {
    return message;
  }
  constexpr std::string_view kRoot = "/parameters";
  std::string located = message.substr(0, message.find('\n'));
  for (const Value& item : violations->get_array()) {
    const Value* pointer = item.find("pointer");
    const Value* schema_pointer = item.find("schema_pointer");
    const Value* text = item.find("message");
    if (pointer == nullptr || !pointer->is_string() || !pointer->get_string().starts_with(kRoot) || text == nullptr ||
        !text->is_string()) {
      return message;
    }
    schema::Violation violation{std::string(pointer->get_string().substr(kRoot.size())),
                                schema_pointer != nullptr && schema_pointer->is_string()
                                    ? std::string(schema_pointer->get_string())
                                    : std::string(),
                                std::string(text->get_string())};
    located += "\n  " + locate_violation(violation, values, files);
  }
  return located;
}

}  // namespace sindri::cli
