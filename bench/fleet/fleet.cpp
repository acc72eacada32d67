#include "fleet/fleet.hpp"

#include <boost/asio/post.hpp>
#include <future>

namespace sindri::bench {

namespace asio = boost::asio;

Fleet::Fleet(const std::vector<AgentCredentials>& agents) : keep_running_(asio::make_work_guard(io_)) {
  agents_.reserve(agents.size());
  for (const auto& agent : agents) {
    agents_.push_back(std::make_unique<SimulatedAgent>(io_, counters_, watch_, agent.broker, agent.id, agent.pak));
  }
  thread_ = std::thread([this] { io_.run(); });
}

Fleet::~Fleet() {
  io_.stop();
  thread_.join();
}

template <typename Work>
auto Fleet::on_fleet_thread(Work work) {
  std::packaged_task<decltype(work())()> task(std::move(work));
  auto done = task.get_future();
  asio::post(io_, [&task] { task(); });
  return done.get();
}

void Fleet::open_sockets(size_t in_flight) {
  asio::post(io_, [this, in_flight] {
    for (size_t i = 0; i < in_flight; ++i) open_next();
  });
}

void Fleet::open_next() {
  if (next_to_open_ == agents_.size()) return;
  agents_[next_to_open_++]->open_socket([this] { open_next(); });
}

void Fleet::start_polling(Clock::duration interval) {
  on_fleet_thread([this, interval] {
    const auto count = static_cast<Clock::rep>(agents_.size());
    for (size_t i = 0; i < agents_.size(); ++i) {
      agents_[i]->start_polling(interval * static_cast<Clock::rep>(i) / count, interval);
    }
    return 0;
  });
}

void Fleet::watch(const std::string& token) {
  on_fleet_thread([this, token] {
    for (auto& agent : agents_) agent->forget_sighting();
    counters_.watched_seen = 0;
    watch_.token = token;
    watch_.active = true;
    return 0;
  });
}

WatchResult Fleet::end_watch() {
  return on_fleet_thread([this] {
    watch_.active = false;
    WatchResult result;
    for (const auto& agent : agents_) result.sightings.push_back(agent->sighting());
    result.frames = watch_.frames;
    result.last_loss = watch_.last_loss;
    result.last_poll_failure = watch_.last_poll_failure;
    return result;
  });
}

void Fleet::close_sockets() {
  on_fleet_thread([this] {
    for (auto& agent : agents_) agent->close_socket();
    return 0;
  });
}

}  // namespace sindri::bench
