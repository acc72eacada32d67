#include "http/tls_server_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <boost/asio/ssl/context.hpp>

#include <atomic>
#include <optional>
#include <vector>

#include "value/file_text.hpp"

namespace sindri::http {
namespace {

namespace ssl = boost::asio::ssl;
using Clock = std::chrono::steady_clock;

// What tells that a file was replaced or rewritten: cert-manager swaps a
// symbolic link (a new inode behind it), an editor rewrites in place.
struct FileStamp {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};

  bool operator==(const FileStamp& other) const {
    return exists == other.exists && device == other.device && inode == other.inode && size == other.size &&
           modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
  }
};

FileStamp stamp_of(const std::string& path) {
  FileStamp stamp;
  struct stat found {};
  if (path.empty() || ::stat(path.c_str(), &found) != 0) return stamp;
  stamp.exists = true;
  stamp.device = found.st_dev;
  stamp.inode = found.st_ino;
  stamp.size = found.st_size;
  stamp.modified = found.st_mtim;
  return stamp;
}

std::vector<FileStamp> stamps_of(const TlsFiles& files) {
  return {stamp_of(files.cert_file), stamp_of(files.key_file), stamp_of(files.client_ca_file)};
}

// OpenSSL's reason for the last failure on this thread, and the queue emptied.
std::string openssl_reason() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "OpenSSL error " + std::to_string(code);
}

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Deleter {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;
using X509Ptr = std::unique_ptr<X509, X509Deleter>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;

// An encrypted key would make OpenSSL ask for its passphrase on the terminal.
int no_passphrase(char*, int, int, void*) { return -1; }

struct NamedText {
  std::string setting;  // "tls.cert_file"
  std::string path;
  std::string text;

  std::string where() const { return setting + " " + path; }
  BioPtr bio() const { return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size()))); }
};

Result<NamedText> read_named(std::string setting, const std::string& path) {
  SINDRI_TRY(text, read_file_text(path, setting));
  return NamedText{std::move(setting), path, std::move(text)};
}

// Every certificate in the file, in order.
Result<std::vector<X509Ptr>> read_certificates(const NamedText& file) {
  if (file.text.find("-----BEGIN CERTIFICATE-----") == std::string::npos &&
      file.text.find("-----BEGIN TRUSTED CERTIFICATE-----") == std::string::npos) {
    return make_error(file.where() + ": no PEM certificate in it");
  }
  BioPtr bio = file.bio();
  std::vector<X509Ptr> certificates;
  ERR_clear_error();
  while (X509* certificate = PEM_read_bio_X509_AUX(bio.get(), nullptr, no_passphrase, nullptr)) {
    certificates.emplace_back(certificate);
  }
  // The loop ends at the end of the text ("no start line"), or at a block
  // that does not parse.
  const unsigned long last = ERR_peek_last_error();
  if (ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE && !certificates.empty()) {
    ERR_clear_error();
    return certificates;
  }
  return make_error(file.where() + ": cannot read certificate " + std::to_string(certificates.size() + 1) +
                    " in it (" + openssl_reason() + ")");
}

Result<KeyPtr> read_private_key(const NamedText& file) {
  if (file.text.find("PRIVATE KEY-----") == std::string::npos) {
    return make_error(file.where() + ": no PEM private key in it");
  }
  if (file.text.find("ENCRYPTED PRIVATE KEY-----") != std::string::npos ||
      file.text.find("Proc-Type: 4,ENCRYPTED") != std::string::npos) {
    return make_error(file.where() + ": the private key is encrypted; give it without a passphrase");
  }
  BioPtr bio = file.bio();
  ERR_clear_error();
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) return make_error(file.where() + ": cannot read the private key in it (" + openssl_reason() + ")");
  return key;
}

Result<std::shared_ptr<ssl::context>> build_context(const TlsFiles& files) {
  if (files.cert_file.empty() || files.key_file.empty()) {
    return make_error("tls.cert_file and tls.key_file go together: both or neither");
  }
  SINDRI_TRY(cert_file, read_named("tls.cert_file", files.cert_file));
  SINDRI_TRY(key_file, read_named("tls.key_file", files.key_file));
  SINDRI_TRY(chain, read_certificates(cert_file));
  SINDRI_TRY(key, read_private_key(key_file));
  if (X509_check_private_key(chain.front().get(), key.get()) != 1) {
    ERR_clear_error();
    return make_error(key_file.where() + ": the key does not match the certificate in " + cert_file.where());
  }

  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_default_passwd_cb(native, no_passphrase);
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1) {
    return make_error("TLS: cannot require TLS 1.2 or later (" + openssl_reason() + ")");
  }
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Session resumption needs an id context, and with client certificates
  // OpenSSL refuses to resume without one.
  static constexpr unsigned char kSessionContext[] = "sindri-broker";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);

  if (SSL_CTX_use_certificate(native, chain.front().get()) != 1) {
    return make_error(cert_file.where() + ": the certificate is not usable (" + openssl_reason() + ")");
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(native, chain[i].get()) != 1) {
      return make_error(cert_file.where() + ": certificate " + std::to_string(i + 1) + " of the chain is not usable (" +
                        openssl_reason() + ")");
    }
  }
  if (SSL_CTX_use_PrivateKey(native, key.get()) != 1 || SSL_CTX_check_private_key(native) != 1) {
    return make_error(key_file.where() + ": the key does not match the certificate in " + cert_file.where() + " (" +
                      openssl_reason() + ")");
  }

  if (!files.client_ca_file.empty()) {
    SINDRI_TRY(ca_file, read_named("tls.client_ca_file", files.client_ca_file));
    SINDRI_TRY(authorities, read_certificates(ca_file));
    X509_STORE* store = SSL_CTX_get_cert_store(native);
    for (const X509Ptr& authority : authorities) {
      // Sent to clients as the CAs whose certificates are acceptable.
      if (X509_STORE_add_cert(store, authority.get()) != 1 || SSL_CTX_add_client_CA(native, authority.get()) != 1) {
        return make_error(ca_file.where() + ": a certificate in it is not usable as a CA (" + openssl_reason() + ")");
      }
    }
    context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return context;
}

}  // namespace

struct TlsServerContext::Impl {
  TlsFiles files;
  std::chrono::nanoseconds recheck_interval;
  std::atomic<std::shared_ptr<ssl::context>> context;
  // Nanoseconds of the steady clock; a relaxed load tells current() whether
  // to look at the files at all.
  std::atomic<int64_t> next_check{0};

  std::mutex mutex;  // for the fields below
  std::vector<FileStamp> loaded_stamps;
  std::string last_failure;  // reported once; empty while the files load
  std::function<void(const Status&)> observer;

  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  }

  // The observer is called outside the lock, so that it may call back.
  void check_files() {
    std::optional<Status> outcome;
    std::function<void(const Status&)> tell;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      const int64_t checking_at = now();
      if (checking_at < next_check.load(std::memory_order_relaxed)) return;  // another thread just looked
      next_check.store(checking_at + recheck_interval.count(), std::memory_order_relaxed);
      std::vector<FileStamp> stamps = stamps_of(files);
      if (stamps == loaded_stamps) return;
      // A rotation half written (a new certificate beside the old key) fails
      // here, keeps the old context, and is tried again at the next check.
      auto built = build_context(files);
      if (built.ok()) {
        context.store(std::move(built).value());
        loaded_stamps = std::move(stamps);
        last_failure.clear();
        outcome = Ok{};
      } else if (built.error().message != last_failure) {
        last_failure = built.error().message;
        outcome = make_error(last_failure);
      }
      if (outcome) tell = observer;
    }
    if (tell) tell(*outcome);
  }
};

TlsServerContext::TlsServerContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TlsServerContext::~TlsServerContext() = default;

Result<std::shared_ptr<TlsServerContext>> TlsServerContext::load(TlsFiles files,
                                                                 std::chrono::milliseconds recheck_interval) {
  auto impl = std::make_unique<Impl>();
  impl->loaded_stamps = stamps_of(files);
  SINDRI_TRY(context, build_context(files));
  impl->context.store(std::move(context));
  impl->files = std::move(files);
  impl->recheck_interval = recheck_interval;
  impl->next_check.store(Impl::now() + impl->recheck_interval.count(), std::memory_order_relaxed);
  return std::shared_ptr<TlsServerContext>(new TlsServerContext(std::move(impl)));
}

std::shared_ptr<ssl::context> TlsServerContext::current() {
  if (Impl::now() >= impl_->next_check.load(std::memory_order_relaxed)) impl_->check_files();
  return impl_->context.load();
}

void TlsServerContext::on_reload(std::function<void(const Status&)> observer) {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->observer = std::move(observer);
}

bool TlsServerContext::requires_client_certificate() const { return !impl_->files.client_ca_file.empty(); }

const TlsFiles& TlsServerContext::files() const { return impl_->files; }

}  // namespace sindri::http
