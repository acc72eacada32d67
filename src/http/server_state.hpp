#pragma once
// Inside the server (server.cpp and http/server_session.hpp only): what the
// connections share with the server, and the limits' names.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "http/server.hpp"

namespace sindri::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class SessionBase;

enum class Refusal : uint8_t { connection_limit, unfinished_limit, header_timeout, body_too_slow, tls_handshake };

inline std::string_view refusal_name(Refusal refusal) {
  switch (refusal) {
    case Refusal::connection_limit:
      return "connection_limit";
    case Refusal::unfinished_limit:
      return "unfinished_limit";
    case Refusal::header_timeout:
      return "header_timeout";
    case Refusal::body_too_slow:
      return "body_too_slow";
    case Refusal::tls_handshake:
      return "tls_handshake";
  }
  return "unknown";
}

// What the sessions share with the server. The io_context is declared after
// the session registry so that sessions it destroys can still unregister.
struct ServerState {
  ServerState(ServerOptions options_in, Handler handler_in, ErrorRenderer render_error_in)
      : options(std::move(options_in)),
        handler(std::move(handler_in)),
        render_error(std::move(render_error_in)),
        io(static_cast<int>(std::max(1u, options.threads))) {}

  ServerOptions options;
  Handler handler;
  ErrorRenderer render_error;

  std::atomic<size_t> open_connections{0};
  std::atomic<size_t> receiving_requests{0};
  std::atomic<size_t> busy_workers{0};
  struct {
    std::atomic<uint64_t> connection_limit{0}, unfinished_limit{0}, header_timeout{0}, body_too_slow{0},
        tls_handshake{0};
  } refusals;
  std::atomic<bool> stopping{false};
  std::atomic<Clock::rep> stop_deadline{0};  // set with stopping
  bool grace_ended = false;                   // end_grace was called; under sessions_mutex
  bool sweeping = false;                     // on the strand
  // Guards the registries, and orders them against setting stopping.
  std::mutex sessions_mutex;
  // Every registered connection, oldest first.
  std::list<SessionBase*> sessions;
  // Connections whose first request's header has not arrived whole, by
  // their peer's address, oldest first; `crowding` orders the addresses by
  // how many they hold, so that a flood from one address makes room from
  // its own connections, not from a far client's slower handshake.
  std::unordered_map<std::string, std::list<SessionBase*>> unfinished;
  std::set<std::pair<size_t, std::string>> crowding;
  size_t unfinished_count = 0;
  // Connections spared from eviction, by the identity that authenticated on them.
  std::unordered_map<std::string, size_t> spared;
  size_t max_connections = 0;  // options.max_connections within the descriptor limit

  asio::io_context io;
  asio::strand<asio::io_context::executor_type> strand{asio::make_strand(io)};
  tcp::acceptor acceptor{strand};
  asio::steady_timer sweep_timer{strand};
  asio::steady_timer accept_retry_timer{strand};

  Response error_response(int status, std::string_view code, std::string_view message) const;
  void accept();
  void sweep();
  // Registers a new session, making room under the caps; false when there
  // is none and the session must close.
  bool admit(SessionBase* session);
  // Registers again a session chosen for eviction that, by the time its
  // strand ran, could no longer be evicted.
  void readmit(SessionBase* session);
  void unregister(SessionBase* session);
  void finished_first_header(SessionBase* session);
  // Whether `identity` may have one more connection spared from eviction;
  // counts it when so.
  bool spare(const std::string& identity);
  void count(Refusal refusal);

  // Under sessions_mutex.
  void add_unfinished(SessionBase* session);
  void forget_unfinished(SessionBase* session);
  SessionBase* most_crowded_unfinished() const;
};

}  // namespace sindri::http::detail
