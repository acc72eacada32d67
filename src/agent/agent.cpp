#include "agent/agent.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <thread>

#include "agent/broker_api.hpp"
#include "agent/broker_channel.hpp"
#include "agent/health_server.hpp"
#include "agent/reconciler.hpp"
#include "agent/tasks.hpp"
#include "agent/wait.hpp"
#include "value/members.hpp"

namespace sindri::agent {
namespace {


struct PendingEvent {
  std::string object_id;
  bool success;
  std::string message;
};

class Loop {
 public:
  Loop(const AgentRun& run, const std::atomic<bool>& stopping)
      : run_(run), settings_(run.settings), stopping_(stopping), broker_(settings_) {}

  int run() {
    auto started = start();
    if (!started.ok()) {
      if (stopping_) return 0;
      log(started.error().message);
      return 1;
    }
    auto looped = settings_.once ? apply_once() : loop();
    if (!looped.ok()) {
      log(looped.error().message);
      return 1;
    }
    if (settings_.once) {
      log(any_apply_failed_ ? "applied once; some objects failed" : "applied once");
      return any_apply_failed_ ? 1 : 0;
    }
    log("stopped");
    return 0;
  }

 private:
  void log(const std::string& line) const {
    if (run_.log) run_.log(line);
  }

  // A broker error: counts refused PAKs (fatal after the limit in a row) and
  // tells whether the broker is down or failing (back off).
  Status note(const BrokerError& error) {
    if (error.refused()) {
      if (++refusals_ >= settings_.auth_failure_limit) return make_error(refused_message());
    }
    if (error.refused() || error.unreachable_or_failing()) failing_ = true;
    if (error.unreachable_or_failing()) health_->broker_failed();
    log(error.message);
    return Ok{};
  }
  void note_success() { refusals_ = 0; }

  // Why the agent gives up on a PAK, for the orchestrator's logs.
  std::string refused_message() const {
    return "the broker refused this agent's PAK " + std::to_string(refusals_) +
           " times in a row (HTTP 401): the PAK was revoked or rotated; give the agent its new PAK "
           "(agent.pak_file or SINDRI_AGENT_PAK) and start it again";
  }

  Status start() {
    for (int64_t attempt = 1;; ++attempt) {
      auto ready = broker_.ready();
      if (ready.ok()) break;
      log("waiting for the broker at " + settings_.broker_url + " (attempt " + std::to_string(attempt) + "/" +
          std::to_string(settings_.max_retries) + "): " + ready.error().message);
      if (attempt >= settings_.max_retries) {
        return make_error("the broker at " + settings_.broker_url + " was not ready after " +
                          std::to_string(settings_.max_retries) + " attempts (agent.max_retries)");
      }
      if (!wait_until(Clock::now() + seconds(settings_.startup_retry_interval), stopping_))
        return make_error("stopped");
    }
    SINDRI_CHECK(until_answered("verifying the PAK", [&] { return broker_.verify_pak(); }));
    SINDRI_TRY(agent, until_answered(
                          "finding this agent",
                          [&] { return broker_.find_agent(settings_.agent_name, settings_.cluster_name); },
                          "the broker knows no agent " + settings_.agent_name + " in cluster " +
                              settings_.cluster_name + " (register it with `sindri agent create`)"));
    agent_id_ = string_member(agent, "id");
    status_ = string_member(agent, "status");
    if (agent_id_.empty()) return make_error("the broker's agent record has no id");
    log("agent " + settings_.agent_name + " (cluster " + settings_.cluster_name + ") is " + agent_id_ + ", status " +
        status_);
    for (const std::string& generator : settings_.generator_ids) {
      SINDRI_CHECK(until_answered("registering with generator " + generator, [&]() -> BrokerResult<Value> {
        auto registered = broker_.register_with(generator, agent_id_);
        if (!registered.ok()) return std::move(registered).error();
        return Value();
      }));
    }
    SINDRI_TRY(sink, run_.make_sink(agent_id_));
    sink_ = std::move(sink);
    health_ = std::make_unique<HealthState>([this]() -> Status {
      if (!run_.hooks.probe_sink) return Ok{};
      auto probed = run_.hooks.probe_sink();
      if (!probed.ok()) return std::move(probed).error();
      return Ok{};
    });
    if (run_.hooks.observe_into) run_.hooks.observe_into(health_->metrics());
    if (auto probed = probe(); !probed) log("the sink " + std::string(sink_->name()) + " does not answer yet");
    if (!settings_.once) {
      server_ = std::make_unique<HealthServer>(*health_, run_.version);
      SINDRI_CHECK(server_->start("0.0.0.0", static_cast<uint16_t>(settings_.health_port)));
      log("health endpoints on port " + std::to_string(server_->port()));
    }
    reconciler_ = std::make_unique<Reconciler>(
        *sink_,
        [this](const DeploymentObject& object, const ApplyOutcome& outcome) {
          log(std::string(outcome.success ? "applied " : "failed ") + object.id + " (stack " + object.stack_id +
              "): " + outcome.message);
          if (!outcome.success) any_apply_failed_ = true;
          events_.push_back({object.id, outcome.success, outcome.message});
          // Once the broker failed this turn the events wait for the next
          // turn, rather than each object waiting out broker_timeout.
          if (failing_) return;
          if (auto sent = send_events(); !sent.ok()) fatal_ = sent.error().message;
        },
        [this](const std::string& line) { log(line); });
    SINDRI_CHECK(reconciler_->seed());
    tasks_ = std::make_unique<Tasks>(broker_, run_.hooks, agent_id_, [this](const std::string& line) { log(line); });
    worker_ =
        std::make_unique<TaskWorker>(settings_, run_.hooks, agent_id_, [this](const std::string& line) { log(line); });
    if (settings_.once) return Ok{};
    channel_ = std::make_unique<BrokerChannel>(settings_, [this](const std::string& line) { log(line); });
    // Telemetry has no REST path: without the channel there is nowhere to send it.
    if (settings_.telemetry && !settings_.ws_force_rest && run_.hooks.start_telemetry) {
      telemetry_ = run_.hooks.start_telemetry(agent_id_, *channel_);
    }
    return Ok{};
  }

  // Start-up calls: retried while the broker is down or failing, fatal when
  // it refuses the PAK too often or answers with any other error.
  // `not_found` is the whole message for a 404, when the call has one.
  template <class Call>
  Result<Value> until_answered(const std::string& what, const Call& call, const std::string& not_found = {}) {
    double backoff = settings_.broker_backoff_initial;
    while (!stopping_) {
      auto answer = call();
      if (answer.ok()) {
        note_success();
        return std::move(answer).value();
      }
      const BrokerError& error = answer.error();
      if (error.refused()) {
        if (++refusals_ >= settings_.auth_failure_limit) {
          return make_error(what + ": " + refused_message());
        }
      } else if (!error.unreachable_or_failing()) {
        if (error.status == 404 && !not_found.empty()) return make_error(not_found);
        return make_error(what + ": " + error.message);
      }
      log(what + ": " + error.message);
      if (!wait_until(Clock::now() + seconds(backoff), stopping_)) break;
      backoff = std::min(backoff * 2, settings_.broker_backoff_max);
    }
    return make_error("stopped");
  }

  std::optional<int64_t> probe() {
    if (!run_.hooks.probe_sink) return 0;
    auto probed = run_.hooks.probe_sink();
    if (!probed.ok()) {
      log("the sink does not answer: " + probed.error().message);
      return std::nullopt;
    }
    return *probed;
  }

  // DEPLOY events wait here while the broker is down, so none is lost.
  Status send_events() {
    while (!events_.empty()) {
      const PendingEvent& event = events_.front();
      auto sent = broker_.deploy_event(agent_id_, event.object_id, event.success, event.message);
      if (!sent.ok()) {
        if (sent.error().unreachable_or_failing() || sent.error().refused()) {
          return note(sent.error());
        }
        log("DEPLOY event for " + event.object_id + " dropped: " + sent.error().message);
      }
      events_.pop_front();
    }
    return Ok{};
  }

  Status heartbeat() {
    const auto latency = probe();
    auto sent = broker_.heartbeat(agent_id_, latency.has_value(), latency);
    if (!sent.ok()) return note(sent.error());
    note_success();
    health_->heartbeat_succeeded();
    health_->metrics().heartbeat_sent();
    auto agent = broker_.agent(agent_id_);
    if (!agent.ok()) return note(agent.error());
    const std::string status(string_member(*agent, "status"));
    if (status != status_) log("agent status " + status_ + " -> " + status);
    status_ = status;
    return Ok{};
  }

  Status poll(bool resync) {
    const auto started = Clock::now();
    auto target = broker_.target_state(agent_id_);
    health_->metrics().observe_poll(target.ok(), std::chrono::duration<double>(Clock::now() - started).count());
    if (!target.ok()) return note(target.error());
    note_success();
    reconciler_->reconcile(**target, resync, stopping_);
    return Ok{};
  }

  // A task's broker error, counted as any other.
  Status note(const std::optional<BrokerError>& error) { return error ? note(*error) : Status(Ok{}); }

  // One heartbeat, one poll that applies everything, its events sent; a
  // broker down or failing is waited out with the usual backoff, as many
  // times as the start waits for it, so that a pipeline's run ends.
  Status apply_once() {
    double backoff = settings_.broker_backoff_initial;
    for (int64_t attempt = 1; !stopping_; ++attempt) {
      if (attempt > settings_.max_retries) {
        return make_error("the broker failed " + std::to_string(settings_.max_retries) +
                          " times in a row before the target state was applied (agent.max_retries)");
      }
      failing_ = false;
      SINDRI_CHECK(heartbeat());
      if (!failing_ && status_ != "ACTIVE") return make_error("the agent is " + status_ + ", not ACTIVE: nothing to apply");
      if (!failing_) SINDRI_CHECK(poll(true));
      if (!fatal_.empty()) return make_error(fatal_);
      if (!failing_) SINDRI_CHECK(send_events());
      if (!failing_) return Ok{};
      wait_until(Clock::now() + seconds(backoff), stopping_);
      backoff = std::min(backoff * 2, settings_.broker_backoff_max);
    }
    return make_error("stopped before the target state was applied");
  }

  Status loop() {
    auto next_heartbeat = Clock::now();
    auto next_poll = next_heartbeat;
    auto next_resync = next_heartbeat + seconds(settings_.resync_interval);
    auto next_health = next_heartbeat + seconds(settings_.deployment_health_interval);
    auto next_task = next_heartbeat;
    double backoff = settings_.broker_backoff_initial;
    while (!stopping_) {
      failing_ = false;
      auto now = Clock::now();
      // A push from the broker: poll now rather than at the interval.
      if (channel_->take_target_push()) next_poll = std::min(next_poll, now);
      if (channel_->take_work_push()) next_task = std::min(next_task, now);
      SINDRI_CHECK(send_events());
      SINDRI_CHECK(note(worker_->finished()));
      if (!failing_ && now >= next_heartbeat) {
        SINDRI_CHECK(heartbeat());
        if (!failing_) next_heartbeat = now + seconds(settings_.polling_interval);
      }
      const bool active = status_ == "ACTIVE";
      if (!failing_ && active && now >= next_poll) {
        const bool resync = now >= next_resync;
        SINDRI_CHECK(poll(resync));
        if (!fatal_.empty()) return make_error(fatal_);
        if (!failing_) {
          next_poll = now + seconds(settings_.polling_interval);
          if (resync) next_resync = now + seconds(settings_.resync_interval);
        }
      }
      if (!failing_ && active && settings_.deployment_health_enabled && now >= next_health) {
        SINDRI_CHECK(note(tasks_->report_health(reconciler_->applied_object_ids())));
        if (!failing_) next_health = now + seconds(settings_.deployment_health_interval);
      }
      if (!failing_ && active && now >= next_task) {
        SINDRI_CHECK(note(tasks_->diagnostics(stopping_)));
        if (!failing_) worker_->start_pass();
        if (!failing_) next_task = now + seconds(settings_.task_interval);
      }
      if (failing_) {
        wait_until(Clock::now() + seconds(backoff), stopping_);
        backoff = std::min(backoff * 2, settings_.broker_backoff_max);
        continue;
      }
      backoff = settings_.broker_backoff_initial;
      auto next = next_heartbeat;
      if (status_ == "ACTIVE") next = std::min({next, next_poll, next_task});
      if (status_ == "ACTIVE" && settings_.deployment_health_enabled) next = std::min(next, next_health);
      wait_until(next, stopping_, [this] { return channel_->pushed(); });
    }
    return Ok{};
  }

  const AgentRun& run_;
  const AgentSettings& settings_;
  const std::atomic<bool>& stopping_;
  BrokerApi broker_;
  std::string agent_id_;
  std::string status_;
  std::unique_ptr<Sink> sink_;
  std::unique_ptr<HealthState> health_;
  std::unique_ptr<HealthServer> server_;
  std::unique_ptr<Reconciler> reconciler_;
  std::deque<PendingEvent> events_;
  std::unique_ptr<Tasks> tasks_;
  std::unique_ptr<TaskWorker> worker_;  // after what its pass uses: stopped and waited for first
  std::unique_ptr<BrokerChannel> channel_;
  std::unique_ptr<TelemetryStreams> telemetry_;  // after the channel it sends through: stopped first
  int64_t refusals_ = 0;
  bool failing_ = false;
  std::string fatal_;  // a refused PAK met while reporting an apply
  bool any_apply_failed_ = false;
};

}  // namespace

int run_agent(const AgentRun& run, const std::atomic<bool>& stopping) { return Loop(run, stopping).run(); }

}  // namespace sindri::agent
