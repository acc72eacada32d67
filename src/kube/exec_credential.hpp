#pragma once
// Running a client.authentication.k8s.io exec plugin for a credential.

#include <cstdint>
#include <optional>
#include <string>

#include "kube/config.hpp"
#include "value/result.hpp"

namespace sindri::kube {

struct ExecCredential {
  std::string token;
  std::string client_certificate_pem, client_key_pem;
  std::optional<int64_t> expires_micros;  // since the Unix epoch; none: valid until a 401
};

// Runs the plugin with its args, our environment (less the agent's PAK
// variables) with its env and KUBERNETES_EXEC_INFO set over it, no signal blocked, and reads the ExecCredential it prints. A plugin that
// fails, times out or prints something else is an error naming the command
// and carrying its stderr.
Result<ExecCredential> run_exec_plugin(const ExecPlugin& plugin);

// The ExecCredential JSON a plugin printed.
Result<ExecCredential> parse_exec_credential(std::string_view json, std::string_view api_version);

}  // namespace sindri::kube
