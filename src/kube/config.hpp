#pragma once
// Where a Kubernetes API server is and how to authenticate to it: read from
// kubeconfig files as kubectl reads them, or from a pod's service account.

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "value/result.hpp"

namespace sindri::kube {

// A client.authentication.k8s.io exec credential plugin (EKS, GKE, AKS).
struct ExecPlugin {
  std::string command;  // a relative path with a '/' is resolved against the kubeconfig's directory
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version;      // client.authentication.k8s.io/v1 or v1beta1
  double timeout_seconds = 60;  // a plugin that runs longer is killed
};

struct ClusterConfig {
  std::string server;  // "https://host:port", no trailing slash
  std::string ca_pem;  // empty: the system's store
  bool insecure_skip_tls_verify = false;
  std::string client_certificate_pem, client_key_pem;
  std::string token;       // static bearer token
  std::string token_file;  // read again when it changes (service account tokens rotate)
  std::optional<ExecPlugin> exec;
  std::string context;            // the context used ("" in cluster)
  std::string default_namespace;  // the context's namespace, "" if none
  std::string source;             // "kubeconfig /path[:/path2] context X" or "in-cluster", for messages
};

struct KubeconfigOptions {
  // Explicit file(s), ':'-separated as KUBECONFIG (each must exist); empty:
  // $KUBECONFIG (missing files skipped, as kubectl does), else ~/.kube/config.
  std::string path;
  std::string context;  // empty: current-context
  std::function<const char*(const char*)> getenv = ::getenv;
};

// Several files merge as kubectl merges them: the first file to name a
// cluster, user or context, or to set current-context, wins.
Result<ClusterConfig> load_kubeconfig(const KubeconfigOptions& options);

struct InClusterOptions {
  std::string secrets_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::function<const char*(const char*)> getenv = ::getenv;
};
// KUBERNETES_SERVICE_HOST/PORT, the service account's token (as token_file),
// CA and namespace.
Result<ClusterConfig> load_in_cluster(const InClusterOptions& options);

// The agent's choice: an explicit kubeconfig path, else $KUBECONFIG, else
// in-cluster when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config.
Result<ClusterConfig> load_cluster_config(const KubeconfigOptions& kubeconfig, const InClusterOptions& in_cluster = {});

}  // namespace sindri::kube
