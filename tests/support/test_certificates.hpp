#pragma once
// Certificates for TLS tests, made by the openssl command (OpenSSL 3's
// `req -x509 -CA`) in a scratch directory: P-256 keys, quick to make, valid
// for two days. Leaves say CA:FALSE and their purpose, which OpenSSL and Go
// (kubectl) check. Every function throws std::runtime_error with openssl's
// output when a command fails.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace sindri_test {

struct CertificateFiles {
  std::filesystem::path cert;  // PEM certificate
  std::filesystem::path key;   // PEM private key, unencrypted
};

// Runs `openssl ARGUMENTS` in `dir`, its output appended to dir/openssl.log.
inline void run_openssl(const std::filesystem::path& dir, const std::string& arguments) {
  const std::string line = "cd '" + dir.string() + "' && openssl " + arguments + " >>openssl.log 2>&1";
  if (std::system(line.c_str()) != 0) {
    std::ifstream log(dir / "openssl.log");
    throw std::runtime_error("test certificates: openssl " + arguments + " failed:\n" +
                             std::string(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>()));
  }
}

namespace certificate_detail {
inline const std::string kNewKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 ";
inline const std::string kServerExtensions =
    "-addext subjectAltName=IP:127.0.0.1,DNS:localhost -addext basicConstraints=critical,CA:FALSE "
    "-addext extendedKeyUsage=serverAuth ";
inline const std::string kClientExtensions =
    "-addext basicConstraints=critical,CA:FALSE -addext extendedKeyUsage=clientAuth ";

inline CertificateFiles files_named(const std::filesystem::path& dir, const std::string& name) {
  return {dir / (name + ".crt"), dir / (name + ".key")};
}
}  // namespace certificate_detail

// A CA: NAME.crt and NAME.key in `dir`.
inline CertificateFiles make_certificate_authority(const std::filesystem::path& dir, const std::string& name) {
  const CertificateFiles made = certificate_detail::files_named(dir, name);
  run_openssl(dir, "req -x509 " + certificate_detail::kNewKey + "-subj /CN=sindri-test-" + name + " -keyout " +
                       made.key.string() + " -out " + made.cert.string());
  return made;
}

// A server certificate for 127.0.0.1 and localhost (subjectAltName) that
// `authority` signed.
inline CertificateFiles make_server_certificate(const std::filesystem::path& dir, const std::string& name,
                                                const CertificateFiles& authority) {
  const CertificateFiles made = certificate_detail::files_named(dir, name);
  run_openssl(dir, "req -x509 " + certificate_detail::kNewKey + "-subj /CN=127.0.0.1 " +
                       certificate_detail::kServerExtensions + "-CA " + authority.cert.string() + " -CAkey " +
                       authority.key.string() + " -keyout " + made.key.string() + " -out " + made.cert.string());
  return made;
}

// A server certificate for 127.0.0.1 and localhost that signed itself: no
// one trusts it.
inline CertificateFiles make_self_signed_certificate(const std::filesystem::path& dir, const std::string& name) {
  const CertificateFiles made = certificate_detail::files_named(dir, name);
  run_openssl(dir, "req -x509 " + certificate_detail::kNewKey + "-subj /CN=127.0.0.1 " +
                       certificate_detail::kServerExtensions + "-keyout " + made.key.string() + " -out " +
                       made.cert.string());
  return made;
}

// A client certificate with `subject` ("/O=group/CN=user") that `authority` signed.
inline CertificateFiles make_client_certificate(const std::filesystem::path& dir, const std::string& name,
                                                const CertificateFiles& authority, const std::string& subject) {
  const CertificateFiles made = certificate_detail::files_named(dir, name);
  run_openssl(dir, "req -x509 " + certificate_detail::kNewKey + "-subj " + subject + " " +
                       certificate_detail::kClientExtensions + "-CA " + authority.cert.string() + " -CAkey " +
                       authority.key.string() + " -keyout " + made.key.string() + " -out " + made.cert.string());
  return made;
}

// The set a TLS test needs, in a scratch directory removed with it.
class TestCertificates {
 public:
  TestCertificates() : dir_(scratch_directory()) {
    try {
      ca = make_certificate_authority(dir_, "ca");
      server = make_server_certificate(dir_, "server", ca);
      second_ca = make_certificate_authority(dir_, "ca2");
      second_server = make_server_certificate(dir_, "server2", second_ca);
      self_signed = make_self_signed_certificate(dir_, "self-signed");
      client_ca = make_certificate_authority(dir_, "client-ca");
      client = make_client_certificate(dir_, "client", client_ca, "/CN=sindri-test-client");
    } catch (...) {
      remove();
      throw;
    }
  }
  ~TestCertificates() { remove(); }
  TestCertificates(const TestCertificates&) = delete;
  TestCertificates& operator=(const TestCertificates&) = delete;

  const std::filesystem::path& directory() const { return dir_; }

  CertificateFiles ca;             // the CA that signed `server`
  CertificateFiles server;         // for 127.0.0.1 and localhost
  CertificateFiles second_ca;      // another CA, for rotations: it signed `second_server`
  CertificateFiles second_server;  // for 127.0.0.1 and localhost
  CertificateFiles self_signed;    // for 127.0.0.1 and localhost, trusted by no one
  CertificateFiles client_ca;      // the CA that signed `client`
  CertificateFiles client;         // a client certificate (clientAuth)

  static std::string read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  static std::filesystem::path scratch_directory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sindri-certificates-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("test certificates: mkdtemp failed");
    return pattern;
  }
  void remove() const {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::filesystem::path dir_;
};

}  // namespace sindri_test
