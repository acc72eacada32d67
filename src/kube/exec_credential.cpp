#include "kube/exec_credential.hpp"

#include <iterator>
#include <string_view>
#include <vector>

#include "process/process.hpp"
#include "value/rfc3339.hpp"
#include "value/json.hpp"
#include "value/value.hpp"

namespace sindri::kube {
namespace {

// A plugin printing more than this is not printing a credential.
constexpr size_t kMaxOutputBytes = 1 << 20;

// The agent's own secrets, which no credential plugin has any use for.
constexpr const char* kWithheldVariables[] = {"SINDRI_AGENT_PAK", "BROKKR__AGENT__PAK"};

std::string exec_info(const ExecPlugin& plugin) {
  Value spec = Object{};
  spec.set("interactive", false);
  Value info = Object{};
  info.set("apiVersion", plugin.api_version);
  info.set("kind", "ExecCredential");
  info.set("spec", spec);
  return to_json(info);
}

}  // namespace

Result<ExecCredential> parse_exec_credential(std::string_view json, std::string_view api_version) {
  auto parsed = parse_json(json);
  if (!parsed.ok()) return make_error("its output is not an ExecCredential: " + parsed.error().describe());
  const Value& credential = parsed.value();
  const Value* kind = credential.find("kind");
  if (kind == nullptr || !kind->is_string() || kind->get_string() != "ExecCredential") {
    return make_error("its output is not an ExecCredential (kind)");
  }
  const Value* version = credential.find("apiVersion");
  if (version == nullptr || !version->is_string() || version->get_string() != api_version) {
    return make_error("its output has apiVersion " + (version != nullptr ? to_json(*version) : "(none)") +
                      ", not the " + std::string(api_version) + " it was asked for");
  }
  const Value* status = credential.find("status");
  if (status == nullptr || !status->is_object()) return make_error("its ExecCredential has no status");
  ExecCredential out;
  auto text_of = [&](std::string_view key) -> Result<std::string> {
    const Value* member = status->find(key);
    if (member == nullptr || member->is_null()) return std::string();
    if (!member->is_string()) return make_error("its ExecCredential's status." + std::string(key) + " is not a string");
    return std::string(member->get_string());
  };
  SINDRI_TRY(token, text_of("token"));
  SINDRI_TRY(certificate, text_of("clientCertificateData"));
  SINDRI_TRY(key, text_of("clientKeyData"));
  SINDRI_TRY(expiry, text_of("expirationTimestamp"));
  if (token.empty() && certificate.empty()) {
    return make_error("its ExecCredential has neither status.token nor status.clientCertificateData");
  }
  if (certificate.empty() != key.empty()) {
    return make_error("its ExecCredential needs both status.clientCertificateData and status.clientKeyData");
  }
  if (!expiry.empty()) {
    const auto micros = rfc3339::parse_micros(expiry);
    if (!micros) return make_error("its ExecCredential's expirationTimestamp " + expiry + " is not RFC 3339");
    out.expires_micros = *micros;
  }
  out.token = std::move(token);
  out.client_certificate_pem = std::move(certificate);
  out.client_key_pem = std::move(key);
  return out;
}

Result<ExecCredential> run_exec_plugin(const ExecPlugin& plugin) {
  const std::string what = "exec plugin " + plugin.command + ": ";
  std::vector<std::string> argv = {plugin.command};
  argv.insert(argv.end(), plugin.args.begin(), plugin.args.end());
  std::vector<std::string> environment = {"KUBERNETES_EXEC_INFO=" + exec_info(plugin)};
  for (const auto& [name, value] : plugin.env) environment.push_back(name + "=" + value);
  auto ran = run_process(ProcessRequest{
      .argv = std::move(argv),
      .input = {},
      .directory = {},
      .timeout_seconds = plugin.timeout_seconds,
      .extra_environment = std::move(environment),
      .withheld_environment = std::vector<std::string>(std::begin(kWithheldVariables), std::end(kWithheldVariables)),
      .max_output_bytes = kMaxOutputBytes});
  if (!ran) return make_error(what + ran.error().message);
  const ProcessOutcome& outcome = *ran;
  const std::string stderr_text = trimmed_output(outcome.err);
  const std::string stderr_part = stderr_text.empty() ? "" : ": " + stderr_text;
  if (outcome.timed_out) {
    return make_error(what + "no answer within " + seconds_text(plugin.timeout_seconds) + " s" + stderr_part);
  }
  if (outcome.exit_code != 0) {
    const std::string how = outcome.exit_code > 128 ? "signal " + std::to_string(outcome.exit_code - 128)
                                                    : "exit status " + std::to_string(outcome.exit_code);
    return make_error(what + "failed (" + how + ")" + stderr_part);
  }
  auto credential = parse_exec_credential(outcome.out, plugin.api_version);
  if (!credential.ok()) return make_error(what + credential.error().message + stderr_part);
  return credential;
}

}  // namespace sindri::kube
