#include "kube/config.hpp"

#include <filesystem>
#include <map>

#include "kube/base64.hpp"
#include "value/file_text.hpp"
#include "value/value.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::kube {
namespace {

namespace fs = std::filesystem;

// A named cluster, user or context, and the file that named it first.
struct Entry {
  Value body;
  fs::path file;
};
using Entries = std::map<std::string, Entry, std::less<>>;

struct Merged {
  Entries clusters, users, contexts;
  std::string current_context;
  std::vector<std::string> files;
};

std::string in_quotes(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t colon = std::min(text.find(':', start), text.size());
    if (colon > start) out.emplace_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  return out;
}

// A string member, "" when absent; an error when it is something else.
Result<std::string> string_member(const Value& object, std::string_view key, std::string_view where) {
  const Value* member = object.find(key);
  if (member == nullptr || member->is_null()) return std::string();
  if (!member->is_string()) {
    return make_error(std::string(where) + ": " + std::string(key) + " must be a string, not " + member->kind_name());
  }
  return std::string(member->get_string());
}

Status merge_named(const Value& root, std::string_view list_key, std::string_view body_key, const fs::path& file,
                   Entries& into) {
  const Value* list = root.find(list_key);
  if (list == nullptr || list->is_null()) return Ok{};
  const std::string where = "kubeconfig " + file.string() + ": " + std::string(list_key);
  if (!list->is_array()) return make_error(where + " must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    const Value& item = *list->at(i);
    const std::string item_where = where + "[" + std::to_string(i) + "]";
    if (!item.is_object()) return make_error(item_where + " must be a mapping");
    SINDRI_TRY(name, string_member(item, "name", item_where));
    if (name.empty()) return make_error(item_where + ": no name");
    const Value* body = item.find(body_key);
    if (body != nullptr && !body->is_null() && !body->is_object()) {
      return make_error(item_where + " (" + in_quotes(name) + "): " + std::string(body_key) + " must be a mapping");
    }
    into.try_emplace(name, Entry{body != nullptr && body->is_object() ? *body : Value(Object{}), file});
  }
  return Ok{};
}

Status merge_file(const fs::path& file, Merged& merged) {
  SINDRI_TRY(text, read_file_text(file, "kubeconfig"));
  YamlOptions yaml_options;
  yaml_options.allow_duplicate_keys = true;  // kubectl's decoder lets the last one win
  auto parsed = parse_yaml(text, file.string(), yaml_options);
  if (!parsed.ok()) return make_error("kubeconfig " + parsed.error().describe());
  const Value& root = parsed.value();
  merged.files.push_back(file.string());
  if (root.is_null()) return Ok{};
  if (!root.is_object()) return make_error("kubeconfig " + file.string() + ": the document must be a mapping");
  SINDRI_CHECK(merge_named(root, "clusters", "cluster", file, merged.clusters));
  SINDRI_CHECK(merge_named(root, "users", "user", file, merged.users));
  SINDRI_CHECK(merge_named(root, "contexts", "context", file, merged.contexts));
  SINDRI_TRY(current, string_member(root, "current-context", "kubeconfig " + file.string()));
  if (merged.current_context.empty()) merged.current_context = current;
  return Ok{};
}

// A path a kubeconfig names, relative to that kubeconfig's directory.
fs::path resolve(const fs::path& kubeconfig, std::string_view path) {
  fs::path named(path);
  if (named.is_relative()) named = kubeconfig.parent_path() / named;
  return named.lexically_normal();
}

// PEM text from `<key>-data` (base64) or the file `<key>` names; "" if neither.
Result<std::string> pem_member(const Entry& entry, std::string_view key, std::string_view where) {
  const std::string data_key = std::string(key) + "-data";
  SINDRI_TRY(data, string_member(entry.body, data_key, where));
  SINDRI_TRY(path, string_member(entry.body, key, where));
  if (!data.empty() && !path.empty()) {
    return make_error(std::string(where) + ": " + data_key + " and " + std::string(key) + " are both set");
  }
  if (!data.empty()) {
    auto decoded = decode_base64(data);
    if (!decoded.ok()) return make_error(std::string(where) + ": " + data_key + ": " + decoded.error().message);
    return std::move(decoded).value();
  }
  if (path.empty()) return std::string();
  auto text = read_file_text(resolve(entry.file, path), key);
  if (!text.ok()) return make_error(std::string(where) + ": " + text.error().message);
  return std::move(text).value();
}

Result<ExecPlugin> exec_plugin(const Entry& user, const Value& exec, const std::string& where) {
  const std::string exec_where = where + ": exec";
  if (!exec.is_object()) return make_error(exec_where + " must be a mapping");
  ExecPlugin plugin;
  SINDRI_TRY(api_version, string_member(exec, "apiVersion", exec_where));
  if (api_version != "client.authentication.k8s.io/v1" && api_version != "client.authentication.k8s.io/v1beta1") {
    return make_error(exec_where + ": apiVersion " + in_quotes(api_version) +
                      " is not supported (client.authentication.k8s.io/v1 or v1beta1)");
  }
  plugin.api_version = api_version;
  SINDRI_TRY(command, string_member(exec, "command", exec_where));
  if (command.empty()) return make_error(exec_where + ": no command");
  // As client-go: a relative path (not a bare name looked up in PATH) is
  // relative to the kubeconfig that names it.
  plugin.command = command.find('/') == std::string::npos ? command : resolve(user.file, command).string();
  if (const Value* args = exec.find("args"); args != nullptr && !args->is_null()) {
    if (!args->is_array()) return make_error(exec_where + ": args must be a list");
    for (const Value& arg : args->get_array()) {
      if (!arg.is_string()) return make_error(exec_where + ": args must be strings");
      plugin.args.emplace_back(arg.get_string());
    }
  }
  if (const Value* env = exec.find("env"); env != nullptr && !env->is_null()) {
    if (!env->is_array()) return make_error(exec_where + ": env must be a list");
    for (const Value& variable : env->get_array()) {
      if (!variable.is_object()) return make_error(exec_where + ": env entries must be mappings");
      SINDRI_TRY(name, string_member(variable, "name", exec_where + ": env"));
      SINDRI_TRY(value, string_member(variable, "value", exec_where + ": env"));
      if (name.empty()) return make_error(exec_where + ": env entry without a name");
      plugin.env.emplace_back(std::move(name), std::move(value));
    }
  }
  return plugin;
}

Status apply_cluster(const Entry& cluster, const std::string& where, ClusterConfig& config) {
  SINDRI_TRY(server, string_member(cluster.body, "server", where));
  while (!server.empty() && server.back() == '/') server.pop_back();
  if (server.empty()) return make_error(where + ": no server");
  config.server = std::move(server);
  SINDRI_TRY(ca, pem_member(cluster, "certificate-authority", where));
  config.ca_pem = std::move(ca);
  if (const Value* insecure = cluster.body.find("insecure-skip-tls-verify"); insecure != nullptr) {
    if (!insecure->is_bool()) return make_error(where + ": insecure-skip-tls-verify must be true or false");
    config.insecure_skip_tls_verify = insecure->get_bool();
  }
  // kubectl refuses this pair too: the CA given would be silently ignored.
  if (config.insecure_skip_tls_verify && !config.ca_pem.empty()) {
    return make_error(where + ": insecure-skip-tls-verify is true and a certificate authority is given; "
                              "verify with the CA or skip verification, not both");
  }
  return Ok{};
}

Status apply_user(const Entry& user, const std::string& where, ClusterConfig& config) {
  if (user.body.find("auth-provider") != nullptr) {
    return make_error(where + ": auth-provider plugins are not supported; use an exec plugin");
  }
  SINDRI_TRY(certificate, pem_member(user, "client-certificate", where));
  SINDRI_TRY(key, pem_member(user, "client-key", where));
  if (certificate.empty() != key.empty()) {
    return make_error(
        where + ": " +
        (certificate.empty() ? "client-key without client-certificate" : "client-certificate without client-key"));
  }
  config.client_certificate_pem = std::move(certificate);
  config.client_key_pem = std::move(key);
  SINDRI_TRY(token, string_member(user.body, "token", where));
  config.token = std::move(token);
  SINDRI_TRY(token_file, string_member(user.body, "tokenFile", where));
  if (!token_file.empty()) config.token_file = resolve(user.file, token_file).string();
  if (const Value* exec = user.body.find("exec"); exec != nullptr && !exec->is_null()) {
    SINDRI_TRY(plugin, exec_plugin(user, *exec, where));
    config.exec = std::move(plugin);
  }
  return Ok{};
}

std::vector<std::string> names(const Entries& entries) {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries) out.push_back(name);
  return out;
}

Result<ClusterConfig> from_merged(const Merged& merged, const std::string& wanted_context) {
  const std::string files = "kubeconfig " + joined(merged.files, ":");
  const std::string known =
      merged.contexts.empty() ? "it has no contexts" : "known contexts: " + joined(names(merged.contexts), ", ");
  const std::string context_name = wanted_context.empty() ? merged.current_context : wanted_context;
  if (context_name.empty()) return make_error(files + ": no current-context is set and no context was given; " + known);
  const auto context = merged.contexts.find(context_name);
  if (context == merged.contexts.end()) {
    return make_error(files + ": context " + in_quotes(context_name) + " is not defined; " + known);
  }
  const std::string where = files + ": context " + in_quotes(context_name);
  const Value& body = context->second.body;
  ClusterConfig config;
  config.context = context_name;
  config.source = files + " context " + context_name;
  SINDRI_TRY(namespace_name, string_member(body, "namespace", where));
  config.default_namespace = std::move(namespace_name);

  SINDRI_TRY(cluster_name, string_member(body, "cluster", where));
  if (cluster_name.empty()) return make_error(where + ": no cluster");
  const auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    return make_error(where + ": cluster " + in_quotes(cluster_name) + " is not defined");
  }
  SINDRI_CHECK(apply_cluster(
      cluster->second, "kubeconfig " + cluster->second.file.string() + ": cluster " + in_quotes(cluster_name), config));

  SINDRI_TRY(user_name, string_member(body, "user", where));
  if (!user_name.empty()) {
    const auto user = merged.users.find(user_name);
    if (user == merged.users.end()) return make_error(where + ": user " + in_quotes(user_name) + " is not defined");
    SINDRI_CHECK(apply_user(user->second, "kubeconfig " + user->second.file.string() + ": user " + in_quotes(user_name),
                            config));
  }
  return config;
}

std::string getenv_text(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* value = getenv ? getenv(name) : nullptr;
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

Result<ClusterConfig> load_kubeconfig(const KubeconfigOptions& options) {
  Merged merged;
  if (!options.path.empty()) {
    const auto files = split_list(options.path);
    if (files.empty()) return make_error("kubeconfig " + in_quotes(options.path) + ": no file named");
    for (const std::string& file : files) SINDRI_CHECK(merge_file(file, merged));
  } else if (const std::string variable = getenv_text(options.getenv, "KUBECONFIG"); !variable.empty()) {
    for (const std::string& file : split_list(variable)) {
      std::error_code error;
      if (fs::exists(file, error)) SINDRI_CHECK(merge_file(file, merged));
    }
    if (merged.files.empty()) return make_error("KUBECONFIG=" + variable + ": none of its files exists");
  } else {
    const std::string home = getenv_text(options.getenv, "HOME");
    if (home.empty()) return make_error("no kubeconfig: KUBECONFIG and HOME are not set");
    SINDRI_CHECK(merge_file(fs::path(home) / ".kube" / "config", merged));
  }
  return from_merged(merged, options.context);
}

Result<ClusterConfig> load_in_cluster(const InClusterOptions& options) {
  const std::string host = getenv_text(options.getenv, "KUBERNETES_SERVICE_HOST");
  const std::string port = getenv_text(options.getenv, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return make_error("in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  ClusterConfig config;
  config.source = "in-cluster";
  config.server = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  const fs::path dir(options.secrets_dir);
  // The token is read here to fail early, and again by the client whenever
  // the file changes: the kubelet rotates it.
  auto token = read_file_text(dir / "token", "service account token");
  if (!token.ok()) return make_error("in-cluster configuration: " + token.error().message);
  config.token_file = (dir / "token").string();
  auto ca = read_file_text(dir / "ca.crt", "service account CA");
  if (!ca.ok()) return make_error("in-cluster configuration: " + ca.error().message);
  config.ca_pem = std::move(ca).value();
  std::error_code error;
  if (fs::exists(dir / "namespace", error)) {
    auto namespace_name = read_file_text(dir / "namespace", "service account namespace");
    if (!namespace_name.ok()) return make_error("in-cluster configuration: " + namespace_name.error().message);
    std::string name = std::move(namespace_name).value();
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    config.default_namespace = std::move(name);
  }
  return config;
}

Result<ClusterConfig> load_cluster_config(const KubeconfigOptions& kubeconfig, const InClusterOptions& in_cluster) {
  if (kubeconfig.path.empty() && getenv_text(kubeconfig.getenv, "KUBECONFIG").empty() &&
      !getenv_text(in_cluster.getenv, "KUBERNETES_SERVICE_HOST").empty()) {
    return load_in_cluster(in_cluster);
  }
  return load_kubeconfig(kubeconfig);
}

}  // namespace sindri::kube
