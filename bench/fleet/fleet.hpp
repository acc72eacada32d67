#pragma once
// The simulated fleet: every agent on one io_context, run by one thread of
// its own, and what the main thread may ask of them while they run.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fleet/simulated_agent.hpp"

namespace sindri::bench {

struct AgentCredentials {
  std::string id, pak;
  boost::asio::ip::tcp::endpoint broker;
};

struct WatchResult {
  std::vector<Sighting> sightings;  // one per agent, in the order given
  std::map<std::string, size_t> frames;
  std::string last_loss, last_poll_failure;
};

class Fleet {
 public:
  explicit Fleet(const std::vector<AgentCredentials>& agents);
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  size_t size() const { return agents_.size(); }
  const FleetCounters& counters() const { return counters_; }

  // Opens every socket, at most `in_flight` openings at a time (a burst of
  // thousands would overflow the broker's listen backlog); returns at once.
  void open_sockets(size_t in_flight);
  // Spreads the agents' first polls evenly over the interval.
  void start_polling(Clock::duration interval);
  // From now on each agent notes when it first fetches a target state
  // holding the token. Returns once the agents are watching.
  void watch(const std::string& token);
  WatchResult end_watch();
  void close_sockets();

 private:
  template <typename Work>
  auto on_fleet_thread(Work work);
  void open_next();

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> keep_running_;
  FleetCounters counters_;
  FleetWatch watch_;
  std::vector<std::unique_ptr<SimulatedAgent>> agents_;
  size_t next_to_open_ = 0;
  std::thread thread_;
};

}  // namespace sindri::bench
