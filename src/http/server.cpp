// The server on Boost.Beast and Asio. One io_context runs on the worker
// threads; each connection is a session on its own strand, going round a
// read -> handle -> write loop, so pipelined requests are answered in order
// and the handler runs on the thread that read the request. The server's own
// strand owns the acceptor and a periodic sweep that closes idle connections.

#include "http/server.hpp"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "http/server_session.hpp"
#include "http/tls_server_context.hpp"

namespace sindri::http {

namespace detail {

Response ServerState::error_response(int status, std::string_view code, std::string_view message) const {
  try {
    if (render_error) return render_error(status, code, message);
  } catch (...) {
    // Fall through to a plain answer: an error path must not fail.
  }
  Response response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::string(message) + "\n";
  return response;
}

void ServerState::accept() {
  acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors, say: try again shortly rather than spin.
      accept_retry_timer.expires_after(std::chrono::milliseconds(50));
      accept_retry_timer.async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec && acceptor.is_open()) accept();
      });
      return;
    }
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    if (options.tls) {
      std::make_shared<Session<TlsStream>>(*this, std::move(socket), options.tls->current())->start();
    } else {
      std::make_shared<Session<PlainStream>>(*this, std::move(socket))->start();
    }
    accept();
  });
}

void ServerState::count(Refusal refusal) {
  switch (refusal) {
    case Refusal::connection_limit:
      refusals.connection_limit.fetch_add(1, std::memory_order_relaxed);
      break;
    case Refusal::unfinished_limit:
      refusals.unfinished_limit.fetch_add(1, std::memory_order_relaxed);
      break;
    case Refusal::header_timeout:
      refusals.header_timeout.fetch_add(1, std::memory_order_relaxed);
      break;
    case Refusal::body_too_slow:
      refusals.body_too_slow.fetch_add(1, std::memory_order_relaxed);
      break;
    case Refusal::tls_handshake:
      refusals.tls_handshake.fetch_add(1, std::memory_order_relaxed);
      break;
  }
  if (options.on_connection_refused) options.on_connection_refused(refusal_name(refusal));
}

namespace {

void forget(std::list<SessionBase*>& list, std::optional<std::list<SessionBase*>::iterator>& at) {
  if (!at) return;
  list.erase(*at);
  at.reset();
}

}  // namespace

void ServerState::add_unfinished(SessionBase* session) {
  std::list<SessionBase*>& queue = unfinished[session->remote()];
  if (!queue.empty()) crowding.erase({queue.size(), session->remote()});
  session->in_unfinished = queue.insert(queue.end(), session);
  crowding.insert({queue.size(), session->remote()});
  ++unfinished_count;
}

void ServerState::forget_unfinished(SessionBase* session) {
  if (!session->in_unfinished) return;
  const auto queue = unfinished.find(session->remote());
  crowding.erase({queue->second.size(), session->remote()});
  forget(queue->second, session->in_unfinished);
  if (queue->second.empty()) {
    unfinished.erase(queue);
  } else {
    crowding.insert({queue->second.size(), session->remote()});
  }
  --unfinished_count;
}

SessionBase* ServerState::most_crowded_unfinished() const {
  if (crowding.empty()) return nullptr;
  return unfinished.at(crowding.rbegin()->second).front();
}

bool ServerState::admit(SessionBase* session) {
  std::vector<Refusal> refused;
  bool admitted = false;
  {
    std::lock_guard lock(sessions_mutex);
    if (!stopping.load(std::memory_order_relaxed)) {
      auto evict = [&](SessionBase* victim, Refusal why) {
        forget_unfinished(victim);
        forget(sessions, victim->in_sessions);
        victim->evict_later();
        refused.push_back(why);
      };
      if (options.max_unfinished_connections > 0 && unfinished_count >= options.max_unfinished_connections) {
        evict(most_crowded_unfinished(), Refusal::unfinished_limit);
      }
      admitted = true;
      if (max_connections > 0 && sessions.size() >= max_connections) {
        // A connection still sending its first request, from the address
        // holding most of them, else the oldest connection no spared
        // identity holds whose handler is not running.
        SessionBase* victim = most_crowded_unfinished();
        for (auto it = sessions.begin(); victim == nullptr && it != sessions.end(); ++it) {
          if ((*it)->evictable()) victim = *it;
        }
        if (victim != nullptr) {
          evict(victim, Refusal::connection_limit);
        } else {
          refused.push_back(Refusal::connection_limit);
          admitted = false;
        }
      }
      if (admitted) {
        session->in_sessions = sessions.insert(sessions.end(), session);
        add_unfinished(session);
      }
    }
  }
  for (Refusal refusal : refused) count(refusal);
  return admitted;
}

void ServerState::readmit(SessionBase* session) {
  std::lock_guard lock(sessions_mutex);
  if (!session->in_sessions) session->in_sessions = sessions.insert(sessions.end(), session);
}

void ServerState::finished_first_header(SessionBase* session) {
  std::lock_guard lock(sessions_mutex);
  forget_unfinished(session);
}

bool ServerState::spare(const std::string& identity) {
  std::lock_guard lock(sessions_mutex);
  size_t& held = spared[identity];
  if (options.max_connections_per_identity > 0 && held >= options.max_connections_per_identity) return false;
  ++held;
  return true;
}

// Runs while there are sessions to watch: until stop, and after it until the
// last session has gone (a client that stops reading must not hang stop()).
void ServerState::sweep() {
  sweeping = true;
  Clock::duration shortest = options.idle_timeout;
  for (const Clock::duration limit : {Clock::duration(options.header_timeout), Clock::duration(options.body_rate_window)}) {
    if (limit.count() > 0 && (shortest.count() == 0 || limit < shortest)) shortest = limit;
  }
  if (shortest.count() == 0) shortest = std::chrono::seconds(2);
  const Clock::duration interval =
      std::clamp<Clock::duration>(shortest / 4, std::chrono::milliseconds(25), std::chrono::seconds(1));
  sweep_timer.expires_after(interval);
  sweep_timer.async_wait([this](beast::error_code ec) {
    if (ec) return;
    const Clock::time_point now = Clock::now();
    {
      std::lock_guard lock(sessions_mutex);
      const bool stopped = stopping.load(std::memory_order_relaxed);
      if (stopped && sessions.empty()) {
        sweeping = false;
        return;
      }
      for (SessionBase* session : sessions) session->close_if_idle_later(stopped, now);
    }
    sweep();
  });
}

void ServerState::unregister(SessionBase* session) {
  std::lock_guard lock(sessions_mutex);
  forget_unfinished(session);
  forget(sessions, session->in_sessions);
  if (session->spared()) {
    if (const auto held = spared.find(session->identity()); held != spared.end() && --held->second == 0) {
      spared.erase(held);
    }
  }
  if (stopping.load(std::memory_order_relaxed) && sessions.empty()) {
    asio::post(strand, [this] { sweep_timer.cancel(); });
  }
}


}  // namespace detail

using namespace detail;


namespace {

// Descriptors kept for what is not a connection: the database's, cached
// answers' memfds, files the broker reads. Past the limit accept() fails
// and the caps never act, so a cap above it is lowered to fit.
constexpr rlim_t kDescriptorReserve = 256;

size_t connections_within_descriptor_limit(size_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
  const size_t room = limit.rlim_cur > 2 * kDescriptorReserve ? static_cast<size_t>(limit.rlim_cur - kDescriptorReserve)
                                                              : static_cast<size_t>(limit.rlim_cur / 2);
  return wanted == 0 ? room : std::min(wanted, room);
}

}  // namespace

struct Server::Impl : ServerState {
  using ServerState::ServerState;

  enum class Lifecycle { created, running, stopping, stopped };
  std::mutex lifecycle_mutex;
  std::condition_variable lifecycle_changed;
  Lifecycle lifecycle = Lifecycle::created;
  bool joining = false;
  std::vector<std::thread> workers;
  std::vector<std::thread::id> worker_ids;
  uint16_t bound_port = 0;

  bool on_worker_thread() {
    std::lock_guard lock(lifecycle_mutex);
    return std::find(worker_ids.begin(), worker_ids.end(), std::this_thread::get_id()) != worker_ids.end();
  }

  void begin_stop() {
    {
      std::lock_guard lock(lifecycle_mutex);
      if (lifecycle == Lifecycle::created) lifecycle = Lifecycle::stopped;
      if (lifecycle != Lifecycle::running) {
        lifecycle_changed.notify_all();
        return;
      }
      lifecycle = Lifecycle::stopping;
    }
    lifecycle_changed.notify_all();
    {
      // Set before the acceptor closes, so the sweep sees it once the last session has gone.
      const Clock::time_point now = Clock::now();
      std::lock_guard lock(sessions_mutex);
      const Clock::time_point deadline = grace_ended ? now : now + options.stop_grace;
      stop_deadline.store(deadline.time_since_epoch().count(), std::memory_order_relaxed);
      stopping.store(true, std::memory_order_relaxed);
      for (SessionBase* session : sessions) session->close_if_idle_later(true, now);
    }
    asio::post(strand, [this] {
      beast::error_code ignored;
      acceptor.close(ignored);
      accept_retry_timer.cancel();
      std::lock_guard lock(sessions_mutex);
      if (sessions.empty()) {
        sweep_timer.cancel();
      } else if (!sweeping) {
        sweep();  // without an idle timeout none ran, and the grace needs one
      }
    });
  }

  // Before the stop has begun too: the stop then has no grace.
  void end_grace() {
    const Clock::time_point now = Clock::now();
    std::lock_guard lock(sessions_mutex);
    grace_ended = true;
    if (!stopping.load(std::memory_order_relaxed)) return;
    stop_deadline.store(now.time_since_epoch().count(), std::memory_order_relaxed);
    for (SessionBase* session : sessions) session->close_if_idle_later(true, now);
  }

  // Under lifecycle_mutex.
  Status bind() {
    if (lifecycle != Lifecycle::created) return make_error("the server was already started");
    if (acceptor.is_open()) return make_error("the server is already bound");
    const std::string address = options.host + ":" + std::to_string(options.port);
    auto failure = [&](const beast::error_code& ec) {
      beast::error_code ignored;
      acceptor.close(ignored);
      return make_error("cannot listen on " + address + ": " + ec.message());
    };
    beast::error_code ec;
    tcp::resolver resolver(io);
    const auto endpoints = resolver.resolve(options.host, std::to_string(options.port),
                                            tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec) return failure(ec);
    if (endpoints.empty()) return failure(asio::error::host_not_found);
    const tcp::endpoint endpoint = endpoints.begin()->endpoint();
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return failure(ec);
    bound_port = acceptor.local_endpoint(ec).port();
    if (ec) return failure(ec);
    return Ok{};
  }

  // Joins the workers once; a second caller waits for the first.
  void join_workers() {
    std::vector<std::thread> joined;
    {
      std::unique_lock lock(lifecycle_mutex);
      lifecycle_changed.wait(lock, [&] { return lifecycle == Lifecycle::stopping || lifecycle == Lifecycle::stopped; });
      if (joining || lifecycle == Lifecycle::stopped) {
        lifecycle_changed.wait(lock, [&] { return lifecycle == Lifecycle::stopped; });
        return;
      }
      joining = true;
      joined.swap(workers);
    }
    for (std::thread& worker : joined) worker.join();
    {
      std::lock_guard lock(lifecycle_mutex);
      lifecycle = Lifecycle::stopped;
    }
    lifecycle_changed.notify_all();
  }
};

Server::Server(ServerOptions options, Handler handler, ErrorRenderer render_error)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler), std::move(render_error))) {}

Server::~Server() { stop(); }

Status Server::bind() {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.lifecycle_mutex);
  return impl.bind();
}

Status Server::start() {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.lifecycle_mutex);
  if (impl.lifecycle != Impl::Lifecycle::created) return make_error("the server was already started");
  if (!impl.acceptor.is_open()) SINDRI_CHECK(impl.bind());

  impl.max_connections = connections_within_descriptor_limit(impl.options.max_connections);
  // sendfile has no MSG_NOSIGNAL: a client that goes away mid-answer must
  // not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  impl.accept();
  if (impl.options.idle_timeout.count() > 0 || impl.options.header_timeout.count() > 0 ||
      impl.options.min_body_rate > 0) {
    impl.sweep();
  }
  const unsigned threads = std::max(1u, impl.options.threads);
  for (unsigned i = 0; i < threads; ++i) {
    impl.workers.emplace_back([&impl] { impl.io.run(); });
    impl.worker_ids.push_back(impl.workers.back().get_id());
  }
  impl.lifecycle = Impl::Lifecycle::running;
  return Ok{};
}

uint16_t Server::port() const { return impl_->bound_port; }

void Server::stop() {
  impl_->begin_stop();
  // A handler that stops its own server cannot join its own thread; whoever
  // calls wait() or destroys the server does.
  if (!impl_->on_worker_thread()) impl_->join_workers();
}

void Server::end_grace() { impl_->end_grace(); }

void Server::wait() { impl_->join_workers(); }

size_t Server::open_connections() const { return impl_->open_connections.load(std::memory_order_relaxed); }

size_t Server::receiving_requests() const {
  return impl_->receiving_requests.load(std::memory_order_relaxed);
}

size_t Server::busy_workers() const { return impl_->busy_workers.load(std::memory_order_relaxed); }

size_t Server::effective_max_connections() const { return impl_->max_connections; }

ConnectionRefusals Server::refused_connections() const {
  const auto& counts = impl_->refusals;
  return ConnectionRefusals{counts.connection_limit.load(std::memory_order_relaxed),
                            counts.unfinished_limit.load(std::memory_order_relaxed),
                            counts.header_timeout.load(std::memory_order_relaxed),
                            counts.body_too_slow.load(std::memory_order_relaxed),
                            counts.tls_handshake.load(std::memory_order_relaxed)};
}

}  // namespace sindri::http
