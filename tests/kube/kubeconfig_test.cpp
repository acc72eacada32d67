// Kubeconfig and in-cluster configuration as kubectl reads them, from files
// in a scratch directory; exec credential plugins as small shell scripts.

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "kube/base64.hpp"
#include "kube/config.hpp"
#include "kube/exec_credential.hpp"

namespace {

namespace fs = std::filesystem;
using sindri::kube::ClusterConfig;
using sindri::kube::KubeconfigOptions;

class Scratch {
 public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "sindri-kubeconfig-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string write(const std::string& relative, const std::string& text, bool executable = false) const {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    if (executable) chmod(path.c_str(), 0755);
    return path.string();
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// A getenv that sees only the given variables.
std::function<const char*(const char*)> environment(std::map<std::string, std::string> variables) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(variables));
  return [shared](const char* name) -> const char* {
    const auto found = shared->find(name);
    return found == shared->end() ? nullptr : found->second.c_str();
  };
}

KubeconfigOptions explicit_path(const std::string& path, const std::string& context = "") {
  KubeconfigOptions options;
  options.path = path;
  options.context = context;
  options.getenv = environment({});
  return options;
}

const char* const kOneCluster = R"(apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443/
    certificate-authority-data: Q0EgUEVN
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: robot
  user:
    token: abc
contexts:
- name: prod-admin
  context: {cluster: prod, user: admin, namespace: shop}
- name: prod-robot
  context: {cluster: prod, user: robot}
current-context: prod-admin
)";

TEST(Base64, DecodesWithAndWithoutPaddingAndSkipsLineBreaks) {
  EXPECT_EQ(sindri::kube::decode_base64("aGVsbG8=").value(), "hello");
  EXPECT_EQ(sindri::kube::decode_base64("aGVsbG8").value(), "hello");
  EXPECT_EQ(sindri::kube::decode_base64("aGVs\nbG8h").value(), "hello!");
  EXPECT_EQ(sindri::kube::decode_base64("").value(), "");
  EXPECT_FALSE(sindri::kube::decode_base64("aGV*").ok());
  EXPECT_FALSE(sindri::kube::decode_base64("a").ok());
  EXPECT_FALSE(sindri::kube::decode_base64("aG=Vs").ok());
}

TEST(Kubeconfig, ReadsTheCurrentContextWithDataFields) {
  Scratch scratch;
  const std::string path = scratch.write("config", kOneCluster);
  auto config = sindri::kube::load_kubeconfig(explicit_path(path));
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->server, "https://prod.example:6443");
  EXPECT_EQ(config->ca_pem, "CA PEM");
  EXPECT_EQ(config->client_certificate_pem, "CERT");
  EXPECT_EQ(config->client_key_pem, "KEY");
  EXPECT_EQ(config->context, "prod-admin");
  EXPECT_EQ(config->default_namespace, "shop");
  EXPECT_EQ(config->source, "kubeconfig " + path + " context prod-admin");
  EXPECT_TRUE(config->token.empty());
  EXPECT_FALSE(config->insecure_skip_tls_verify);
}

TEST(Kubeconfig, AGivenContextWinsOverTheCurrentOne) {
  Scratch scratch;
  auto config = sindri::kube::load_kubeconfig(explicit_path(scratch.write("config", kOneCluster), "prod-robot"));
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->token, "abc");
  EXPECT_TRUE(config->client_certificate_pem.empty());
  EXPECT_EQ(config->default_namespace, "");
}

TEST(Kubeconfig, FilesMergeFirstWinsAndPathsAreRelativeToTheirFile) {
  Scratch scratch;
  scratch.write("b/certs/client.crt", "CLIENT CERT FROM B");
  scratch.write("b/certs/client.key", "CLIENT KEY FROM B");
  scratch.write("b/ca.crt", "CA FROM B");
  const std::string first = scratch.write("a/config", R"(clusters:
- name: shared
  cluster: {server: "https://first.example"}
contexts:
- name: mine
  context: {cluster: shared, user: from-b}
current-context: mine
)");
  const std::string second = scratch.write("b/config", R"(clusters:
- name: shared
  cluster: {server: "https://second.example"}
- name: other
  cluster: {server: "https://other.example", certificate-authority: ca.crt}
users:
- name: from-b
  user: {client-certificate: certs/client.crt, client-key: certs/client.key, tokenFile: token}
contexts:
- name: mine
  context: {cluster: other, user: from-b}
- name: theirs
  context: {cluster: other, user: from-b}
current-context: theirs
)");
  KubeconfigOptions options;
  options.getenv = environment({{"KUBECONFIG", first + ":" + scratch.dir().string() + "/missing:" + second}});
  auto config = sindri::kube::load_kubeconfig(options);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->context, "mine");                  // the first file's current-context
  EXPECT_EQ(config->server, "https://first.example");  // and its context and cluster
  EXPECT_EQ(config->client_certificate_pem, "CLIENT CERT FROM B");
  EXPECT_EQ(config->client_key_pem, "CLIENT KEY FROM B");
  EXPECT_EQ(config->token_file, (scratch.dir() / "b/token").string());
  EXPECT_EQ(config->source, "kubeconfig " + first + ":" + second + " context mine");

  options.context = "theirs";
  config = sindri::kube::load_kubeconfig(options);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->server, "https://other.example");
  EXPECT_EQ(config->ca_pem, "CA FROM B");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
}

TEST(Kubeconfig, SkippingVerificationWithACertificateAuthorityIsAnError) {
  Scratch scratch;
  scratch.write("ca.crt", "CA");
  const std::string path = scratch.write("config", R"(clusters:
- name: both
  cluster: {server: "https://x.example", certificate-authority: ca.crt, insecure-skip-tls-verify: true}
- name: insecure
  cluster: {server: "https://x.example", insecure-skip-tls-verify: true}
contexts:
- name: both
  context: {cluster: both}
- name: insecure
  context: {cluster: insecure}
current-context: both
)");
  auto both = sindri::kube::load_kubeconfig(explicit_path(path));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().message, "kubeconfig " + path +
                                      ": cluster \"both\": insecure-skip-tls-verify is true and a certificate "
                                      "authority is given; verify with the CA or skip verification, not both");
  auto insecure = sindri::kube::load_kubeconfig(explicit_path(path, "insecure"));
  ASSERT_TRUE(insecure.ok()) << insecure.error().message;
  EXPECT_TRUE(insecure->insecure_skip_tls_verify);
}

TEST(Kubeconfig, TheDefaultIsTheHomeDirectorysConfig) {
  Scratch scratch;
  scratch.write(".kube/config", kOneCluster);
  KubeconfigOptions options;
  options.getenv = environment({{"HOME", scratch.dir().string()}});
  auto config = sindri::kube::load_kubeconfig(options);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->context, "prod-admin");
}

TEST(Kubeconfig, ErrorsNameTheFileTheContextAndTheKey) {
  Scratch scratch;
  const std::string good = scratch.write("config", kOneCluster);

  auto missing = sindri::kube::load_kubeconfig(explicit_path(scratch.dir().string() + "/nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("No such file"), std::string::npos) << missing.error().message;

  auto unknown = sindri::kube::load_kubeconfig(explicit_path(good, "staging"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message,
            "kubeconfig " + good + ": context \"staging\" is not defined; known contexts: prod-admin, prod-robot");

  const std::string no_current = scratch.write("no-current", "contexts:\n- name: x\n  context: {cluster: c}\n");
  auto none = sindri::kube::load_kubeconfig(explicit_path(no_current));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "kubeconfig " + no_current + ": no current-context is set and no context was given; known contexts: x");

  const std::string bad_base64 =
      scratch.write("bad-base64",
                    "clusters:\n- name: c\n  cluster: {server: https://x, certificate-authority-data: '@@@'}\n"
                    "contexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n");
  auto base64 = sindri::kube::load_kubeconfig(explicit_path(bad_base64));
  ASSERT_FALSE(base64.ok());
  EXPECT_EQ(base64.error().message, "kubeconfig " + bad_base64 +
                                        ": cluster \"c\": certificate-authority-data: not base64: unexpected "
                                        "character at offset 0");

  const std::string syntax = scratch.write("syntax", "clusters:\n- name: c\n  cluster: [\n");
  auto yaml = sindri::kube::load_kubeconfig(explicit_path(syntax));
  ASSERT_FALSE(yaml.ok());
  EXPECT_EQ(yaml.error().message.rfind("kubeconfig " + syntax + ":4:", 0), 0u) << yaml.error().message;

  const std::string missing_cert =
      scratch.write("missing-cert",
                    "users:\n- name: u\n  user: {client-certificate: gone.crt, client-key: gone.key}\n"
                    "clusters:\n- name: c\n  cluster: {server: https://x}\n"
                    "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
  auto cert = sindri::kube::load_kubeconfig(explicit_path(missing_cert));
  ASSERT_FALSE(cert.ok());
  EXPECT_NE(
      cert.error().message.find("user \"u\": cannot read client-certificate " + (scratch.dir() / "gone.crt").string()),
      std::string::npos)
      << cert.error().message;

  const std::string dangling =
      scratch.write("dangling", "contexts:\n- name: x\n  context: {cluster: nowhere}\ncurrent-context: x\n");
  auto cluster = sindri::kube::load_kubeconfig(explicit_path(dangling));
  ASSERT_FALSE(cluster.ok());
  EXPECT_EQ(cluster.error().message, "kubeconfig " + dangling + ": context \"x\": cluster \"nowhere\" is not defined");

  KubeconfigOptions no_files;
  no_files.getenv = environment({{"KUBECONFIG", scratch.dir().string() + "/a:" + scratch.dir().string() + "/b"}});
  auto nothing = sindri::kube::load_kubeconfig(no_files);
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.error().message.find("none of its files exists"), std::string::npos);
}

TEST(Kubeconfig, ReadsExecPlugins) {
  Scratch scratch;
  const std::string path = scratch.write("config", R"(clusters:
- name: c
  cluster: {server: "https://x"}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/credential
      args: [token, --cluster, c]
      env: [{name: REGION, value: north}]
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)");
  auto config = sindri::kube::load_kubeconfig(explicit_path(path));
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_TRUE(config->exec.has_value());
  EXPECT_EQ(config->exec->command, (scratch.dir() / "bin/credential").string());
  EXPECT_EQ(config->exec->args, (std::vector<std::string>{"token", "--cluster", "c"}));
  ASSERT_EQ(config->exec->env.size(), 1u);
  EXPECT_EQ(config->exec->env[0].first, "REGION");
  EXPECT_EQ(config->exec->api_version, "client.authentication.k8s.io/v1beta1");

  const std::string alpha = scratch.write("alpha", R"(clusters: [{name: c, cluster: {server: "https://x"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)");
  auto unsupported = sindri::kube::load_kubeconfig(explicit_path(alpha));
  ASSERT_FALSE(unsupported.ok());
  EXPECT_NE(unsupported.error().message.find("user \"u\": exec: apiVersion \"client.authentication.k8s.io/v1alpha1\""),
            std::string::npos)
      << unsupported.error().message;
}

sindri::kube::ExecPlugin plugin_script(const Scratch& scratch, const std::string& body) {
  sindri::kube::ExecPlugin plugin;
  plugin.command = scratch.write("plugin.sh", "#!/bin/sh\n" + body, true);
  plugin.api_version = "client.authentication.k8s.io/v1";
  return plugin;
}

TEST(ExecPlugin, GivesItsArgumentsEnvironmentAndExecInfo) {
  Scratch scratch;
  auto plugin =
      plugin_script(scratch, R"(case "$KUBERNETES_EXEC_INFO" in *'"kind":"ExecCredential"'*) ;; *) exit 3;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s-%s","expirationTimestamp":"2030-01-02T03:04:05Z"}}' "$1" "$REGION"
)");
  plugin.args = {"first"};
  plugin.env = {{"REGION", "north"}};
  auto credential = sindri::kube::run_exec_plugin(plugin);
  ASSERT_TRUE(credential.ok()) << credential.error().message;
  EXPECT_EQ(credential->token, "first-north");
  ASSERT_TRUE(credential->expires_micros.has_value());
  EXPECT_EQ(*credential->expires_micros, int64_t(1893553445) * 1'000'000);
}

TEST(ExecPlugin, ItsEnvWinsTheAgentsSecretsStayAndNoSignalIsBlocked) {
  Scratch scratch;
  auto plugin = plugin_script(scratch, R"(blocked=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s/%s/%s/%s"}}' "$REGION" "$SINDRI_AGENT_PAK" "$BROKKR__AGENT__PAK" "$blocked"
)");
  plugin.env = {{"REGION", "north"}};
  setenv("REGION", "agent's", 1);
  setenv("SINDRI_AGENT_PAK", "secret", 1);
  setenv("BROKKR__AGENT__PAK", "secret", 1);
  sigset_t terminate, before;
  sigemptyset(&terminate);
  sigaddset(&terminate, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &terminate, &before);
  auto credential = sindri::kube::run_exec_plugin(plugin);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  unsetenv("REGION");
  unsetenv("SINDRI_AGENT_PAK");
  unsetenv("BROKKR__AGENT__PAK");
  ASSERT_TRUE(credential.ok()) << credential.error().message;
  EXPECT_EQ(credential->token, "north///0000000000000000");
}

TEST(ExecPlugin, AFailureCarriesItsStderr) {
  Scratch scratch;
  auto plugin = plugin_script(scratch, "echo 'no credentials for you' >&2\nexit 2\n");
  auto credential = sindri::kube::run_exec_plugin(plugin);
  ASSERT_FALSE(credential.ok());
  EXPECT_EQ(credential.error().message,
            "exec plugin " + plugin.command + ": failed (exit status 2): no credentials for you");

  plugin.command = (scratch.dir() / "absent").string();
  auto absent = sindri::kube::run_exec_plugin(plugin);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().message,
            "exec plugin " + plugin.command + ": cannot run " + plugin.command + ": No such file or directory");
}

TEST(ExecPlugin, OutputThatIsNoCredentialIsAnError) {
  Scratch scratch;
  auto wrong_version = sindri::kube::run_exec_plugin(plugin_script(
      scratch,
      R"(echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}')"));
  ASSERT_FALSE(wrong_version.ok());
  EXPECT_NE(wrong_version.error().message.find("not the client.authentication.k8s.io/v1"), std::string::npos);

  auto not_json = sindri::kube::run_exec_plugin(plugin_script(scratch, "echo hello\n"));
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.error().message.find("not an ExecCredential"), std::string::npos);

  auto empty = sindri::kube::parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})",
      "client.authentication.k8s.io/v1");
  ASSERT_FALSE(empty.ok());
  auto bad_time = sindri::kube::parse_exec_credential(
      R"({"apiVersion":"v","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"soon"}})", "v");
  ASSERT_FALSE(bad_time.ok());
  EXPECT_NE(bad_time.error().message.find("soon"), std::string::npos);
}

TEST(ExecPlugin, APluginThatHangsIsKilled) {
  Scratch scratch;
  auto plugin = plugin_script(scratch, "exec sleep 30\n");
  plugin.timeout_seconds = 0.2;
  auto credential = sindri::kube::run_exec_plugin(plugin);
  ASSERT_FALSE(credential.ok());
  EXPECT_NE(credential.error().message.find("no answer within"), std::string::npos) << credential.error().message;
}

TEST(InCluster, ReadsTheServiceAccount) {
  Scratch scratch;
  scratch.write("sa/token", "sa-token\n");
  scratch.write("sa/ca.crt", "CLUSTER CA");
  scratch.write("sa/namespace", "agents\n");
  sindri::kube::InClusterOptions options;
  options.secrets_dir = (scratch.dir() / "sa").string();
  options.getenv = environment({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  auto config = sindri::kube::load_in_cluster(options);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->server, "https://10.0.0.1:443");
  EXPECT_EQ(config->token_file, (scratch.dir() / "sa/token").string());
  EXPECT_EQ(config->ca_pem, "CLUSTER CA");
  EXPECT_EQ(config->default_namespace, "agents");
  EXPECT_EQ(config->source, "in-cluster");

  options.getenv = environment({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  EXPECT_EQ(sindri::kube::load_in_cluster(options)->server, "https://[fd00::1]:443");

  options.getenv = environment({});
  EXPECT_FALSE(sindri::kube::load_in_cluster(options).ok());

  options.getenv = environment({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  options.secrets_dir = (scratch.dir() / "elsewhere").string();
  auto missing = sindri::kube::load_in_cluster(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("service account token"), std::string::npos);
}

TEST(ClusterConfigChoice, KubeconfigThenInClusterThenHome) {
  Scratch scratch;
  scratch.write("sa/token", "t");
  scratch.write("sa/ca.crt", "CA");
  const std::string kubeconfig = scratch.write("config", kOneCluster);
  scratch.write("home/.kube/config", kOneCluster);
  sindri::kube::InClusterOptions in_cluster;
  in_cluster.secrets_dir = (scratch.dir() / "sa").string();
  std::map<std::string, std::string> pod = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"},
                                            {"HOME", (scratch.dir() / "home").string()}};
  in_cluster.getenv = environment(pod);

  KubeconfigOptions options;
  options.getenv = environment(pod);
  EXPECT_EQ(sindri::kube::load_cluster_config(options, in_cluster)->source, "in-cluster");

  options.path = kubeconfig;
  EXPECT_EQ(sindri::kube::load_cluster_config(options, in_cluster)->context, "prod-admin");

  options.path.clear();
  pod["KUBECONFIG"] = kubeconfig;
  options.getenv = environment(pod);
  EXPECT_EQ(sindri::kube::load_cluster_config(options, in_cluster)->source,
            "kubeconfig " + kubeconfig + " context prod-admin");

  pod.erase("KUBECONFIG");
  pod.erase("KUBERNETES_SERVICE_HOST");
  options.getenv = environment(pod);
  in_cluster.getenv = environment(pod);
  EXPECT_EQ(sindri::kube::load_cluster_config(options, in_cluster)->source,
            "kubeconfig " + (scratch.dir() / "home/.kube/config").string() + " context prod-admin");
}

}  // namespace
