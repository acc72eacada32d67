// The render pool's order, per-caller limits, refusals and stop. Tasks are
// held on futures the test releases, so that what runs at once is known
// without timing anything.

#include "broker/render_pool.hpp"

#include <atomic>
#include <new>

#include <future>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/template_rendering.hpp"

namespace sindri::broker {
namespace {

BrokerConfig pool_settings(int64_t threads, int64_t per_identity, double queue_wait, int64_t queue_limit = 64) {
  BrokerConfig config;
  config.render_threads = threads;
  config.render_per_identity_limit = per_identity;
  config.render_queue_wait = queue_wait;
  config.render_queue_limit = queue_limit;
  return config;
}

// What ran and what was refused, in the order it happened.
class Journal {
 public:
  void add(std::string entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(std::move(entry));
  }
  std::vector<std::string> entries() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> entries_;
};

const char* reason_name(RenderRefusal reason) {
  switch (reason) {
    case RenderRefusal::CallerAtLimit: return "caller_at_limit";
    case RenderRefusal::PoolBusy: return "pool_busy";
    case RenderRefusal::QueueFull: return "queue_full";
    case RenderRefusal::Stopping: return "stopping";
  }
  return "?";
}

// A task that says when it started and runs until released.
struct HeldTask {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  void submit(RenderPool& pool, const std::string& identity, Journal& journal, const std::string& name) {
    pool.submit(
        identity,
        [this, &journal, name] {
          journal.add(name);
          started.set_value();
          released.wait();
        },
        [&journal, name](RenderRefusal reason) { journal.add(name + " refused " + reason_name(reason)); });
  }
  void wait_started() { started.get_future().wait(); }
};

// A task that records its run or its refusal and signals either.
struct QuickTask {
  std::promise<void> done;
  std::future<void> finished = done.get_future();

  void submit(RenderPool& pool, const std::string& identity, Journal& journal, const std::string& name) {
    pool.submit(
        identity,
        [this, &journal, name] {
          journal.add(name);
          done.set_value();
        },
        [this, &journal, name](RenderRefusal reason) {
          journal.add(name + " refused " + reason_name(reason));
          done.set_value();
        });
  }
};

TEST(RenderPool, AnotherCallerRunsWhileOneIsAtItsLimit) {
  LiveConfig config(pool_settings(2, 1, 60));
  Journal journal;
  HeldTask a1;
  QuickTask a2;
  QuickTask b1;
  {
    RenderPool pool(config);
    a1.submit(pool, "generator:a", journal, "a1");
    a1.wait_started();
    a2.submit(pool, "generator:a", journal, "a2");
    b1.submit(pool, "generator:b", journal, "b1");
    // b1 came after a2 and a thread is free, but a2's caller is at its
    // limit: b1 passes it.
    b1.finished.wait();
    EXPECT_EQ(journal.entries(), (std::vector<std::string>{"a1", "b1"}));
    EXPECT_EQ(pool.stats().waiting, 1u);
    a1.release.set_value();
    a2.finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"a1", "b1", "a2"}));
}

TEST(RenderPool, WaitingTasksRunInArrivalOrder) {
  LiveConfig config(pool_settings(1, 4, 60));
  Journal journal;
  HeldTask hold;
  std::vector<std::unique_ptr<QuickTask>> tasks;
  {
    RenderPool pool(config);
    hold.submit(pool, "admin:", journal, "hold");
    hold.wait_started();
    for (const char* name : {"a1", "b1", "a2", "c1", "b2"}) {
      tasks.push_back(std::make_unique<QuickTask>());
      tasks.back()->submit(pool, std::string("generator:") + name[0], journal, name);
    }
    EXPECT_EQ(pool.stats().waiting, 5u);
    hold.release.set_value();
    for (auto& task : tasks) task->finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"hold", "a1", "b1", "a2", "c1", "b2"}));
}

TEST(RenderPool, AWaitPastQueueWaitIsRefusedNamingWhatHeldItUp) {
  LiveConfig config(pool_settings(1, 1, 0.05));
  Journal journal;
  HeldTask a1;
  QuickTask a2;
  QuickTask b1;
  {
    RenderPool pool(config);
    a1.submit(pool, "generator:a", journal, "a1");
    a1.wait_started();
    a2.submit(pool, "generator:a", journal, "a2");
    a2.finished.wait();
    b1.submit(pool, "generator:b", journal, "b1");
    b1.finished.wait();
    EXPECT_EQ(pool.stats().refused, 2u);
    a1.release.set_value();
  }
  EXPECT_EQ(journal.entries(),
            (std::vector<std::string>{"a1", "a2 refused caller_at_limit", "b1 refused pool_busy"}));
}

TEST(RenderPool, PastTheQueueLimitATaskIsRefusedAtOnce) {
  LiveConfig config(pool_settings(1, 8, 60, 2));
  Journal journal;
  HeldTask hold;
  std::vector<std::unique_ptr<QuickTask>> tasks;
  {
    RenderPool pool(config);
    hold.submit(pool, "generator:a", journal, "hold");
    hold.wait_started();
    for (const char* name : {"w1", "w2", "over"}) {
      tasks.push_back(std::make_unique<QuickTask>());
      tasks.back()->submit(pool, std::string("generator:") + name, journal, name);
    }
    // Refused before submit returned: the thread is still held.
    EXPECT_EQ(journal.entries(), (std::vector<std::string>{"hold", "over refused queue_full"}));
    hold.release.set_value();
    for (auto& task : tasks) task->finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"hold", "over refused queue_full", "w1", "w2"}));
}

TEST(RenderPool, AFullQueueStillLetsInATaskAnIdleThreadTakes) {
  LiveConfig config(pool_settings(2, 1, 60, 1));
  Journal journal;
  HeldTask a1;
  QuickTask a2;
  QuickTask b1;
  {
    RenderPool pool(config);
    a1.submit(pool, "generator:a", journal, "a1");
    a1.wait_started();
    a2.submit(pool, "generator:a", journal, "a2");  // waits: its caller is at its limit
    b1.submit(pool, "generator:b", journal, "b1");  // the queue is full, but a thread is idle
    b1.finished.wait();
    a1.release.set_value();
    a2.finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"a1", "b1", "a2"}));
}

TEST(RenderPool, LimitsAreReadAtEachSubmission) {
  LiveConfig config(pool_settings(2, 1, 60));
  Journal journal;
  HeldTask a1;
  HeldTask a2;
  {
    RenderPool pool(config);
    a1.submit(pool, "generator:a", journal, "a1");
    a1.wait_started();
    config.replace(pool_settings(2, 2, 60));
    a2.submit(pool, "generator:a", journal, "a2");
    a2.wait_started();  // two of a's renders run at once
    EXPECT_EQ(pool.stats().running, 2u);
    a1.release.set_value();
    a2.release.set_value();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"a1", "a2"}));
}

TEST(RenderPool, StoppingRefusesWaitingTasksAndFinishesRunningOnes) {
  LiveConfig config(pool_settings(1, 1, 60));
  Journal journal;
  HeldTask running;
  QuickTask waiting;
  std::thread releaser;
  {
    RenderPool pool(config);
    running.submit(pool, "generator:a", journal, "running");
    running.wait_started();
    waiting.submit(pool, "generator:b", journal, "waiting");
    // Released only once the stop has refused the waiting task, so the
    // running one is still running when the stop begins.
    releaser = std::thread([&] {
      waiting.finished.wait();
      running.release.set_value();
    });
  }
  releaser.join();
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"running", "waiting refused stopping"}));
}

TEST(RenderPool, ATaskThatThrowsLeavesThePoolServing) {
  LiveConfig config(pool_settings(1, 1, 60));
  Journal journal;
  QuickTask after;
  {
    RenderPool pool(config);
    pool.submit("generator:a", [] { throw std::bad_alloc(); }, [](RenderRefusal) {});
    after.submit(pool, "generator:a", journal, "after");
    after.finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"after"}));
}

TEST(RenderPool, ACallerPastItsLimitTakesAThreadNoOtherCallerWaitsForButLeavesOneFree) {
  LiveConfig config(pool_settings(3, 1, 60));
  Journal journal;
  HeldTask a1;
  HeldTask a2;
  QuickTask a3;
  QuickTask b1;
  {
    RenderPool pool(config);
    a1.submit(pool, "generator:a", journal, "a1");
    a1.wait_started();
    a2.submit(pool, "generator:a", journal, "a2");  // past a's limit, on a thread that would idle
    a2.wait_started();
    a3.submit(pool, "generator:a", journal, "a3");  // would take the last free thread: waits
    b1.submit(pool, "generator:b", journal, "b1");  // takes it
    b1.finished.wait();
    EXPECT_EQ(pool.stats().waiting, 1u);
    a1.release.set_value();
    a2.release.set_value();
    a3.finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"a1", "a2", "b1", "a3"}));
}

TEST(RenderPool, ACallerMayHoldHalfTheQueue) {
  LiveConfig config(pool_settings(1, 1, 60, 8));
  Journal journal;
  HeldTask hold;
  std::vector<std::unique_ptr<QuickTask>> tasks;
  QuickTask other;
  {
    RenderPool pool(config);
    hold.submit(pool, "generator:a", journal, "hold");
    hold.wait_started();
    for (const char* name : {"a1", "a2", "a3", "a4", "a5"}) {
      tasks.push_back(std::make_unique<QuickTask>());
      tasks.back()->submit(pool, "generator:a", journal, name);
    }
    // a5 is refused at once as a's own excess; b still queues.
    other.submit(pool, "generator:b", journal, "b1");
    EXPECT_EQ(journal.entries(), (std::vector<std::string>{"hold", "a5 refused caller_at_limit"}));
    EXPECT_EQ(pool.stats().waiting, 5u);
    hold.release.set_value();
    for (auto& task : tasks) task->finished.wait();
    other.finished.wait();
  }
  EXPECT_EQ(journal.entries().size(), 7u);
}

TEST(RenderPool, AFullQueueRefusesACallerAtItsLimitAs429) {
  LiveConfig config(pool_settings(1, 2, 60, 2));
  Journal journal;
  HeldTask a1;
  QuickTask b1;
  QuickTask c1;
  QuickTask a2;
  QuickTask d1;
  {
    RenderPool pool(config);
    a1.submit(pool, "generator:a", journal, "a1");
    a1.wait_started();
    b1.submit(pool, "generator:b", journal, "b1");  // b1 and c1 fill the queue
    c1.submit(pool, "generator:c", journal, "c1");
    config.replace(pool_settings(1, 1, 60, 2));
    a2.submit(pool, "generator:a", journal, "a2");  // a is at its limit: its own fault
    d1.submit(pool, "generator:d", journal, "d1");  // d is not: the pool's
    a1.release.set_value();
    b1.finished.wait();
    c1.finished.wait();
  }
  EXPECT_EQ(journal.entries(), (std::vector<std::string>{"a1", "a2 refused caller_at_limit", "d1 refused queue_full",
                                                         "b1", "c1"}));
}

TEST(RenderPool, CancellingRefusesWaitingAndLaterTasksAndSetsTheFlag) {
  LiveConfig config(pool_settings(1, 1, 60));
  Journal journal;
  HeldTask running;
  QuickTask waiting;
  QuickTask later;
  {
    RenderPool pool(config);
    EXPECT_FALSE(pool.cancel_flag().load());
    running.submit(pool, "generator:a", journal, "running");
    running.wait_started();
    waiting.submit(pool, "generator:b", journal, "waiting");
    pool.cancel_running();
    EXPECT_TRUE(pool.cancel_flag().load());
    later.submit(pool, "generator:b", journal, "later");
    running.release.set_value();
  }
  EXPECT_EQ(journal.entries(),
            (std::vector<std::string>{"running", "waiting refused stopping", "later refused stopping"}));
}

// A render given the pool's flag stops once it is set, and the broker
// answers it 503 shutting_down; without the flag the same render completes.
TEST(RenderPool, ACancelledRenderStopsAs503ShuttingDown) {
  const render::TemplateVersion version{
      .name = "cancelled",
      .version = 1,
      .content = "{% for i in range(end=100000) %}{% endfor %}apiVersion: v1\nkind: ConfigMap\n"
                 "metadata:\n  name: cancelled\n",
      .parameters_schema = R"({"type": "object"})"};
  auto compiled = compile_stored_version(version);
  ASSERT_TRUE(compiled.ok());
  BrokerConfig settings;
  settings.render_max_duration = 0;
  std::atomic<bool> cancel = false;
  EXPECT_TRUE(render_stored_version(compiled.value(), Value(Object{}), settings, &cancel).ok());
  cancel = true;
  auto cancelled = render_stored_version(compiled.value(), Value(Object{}), settings, &cancel);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error().status, 503);
  EXPECT_EQ(cancelled.error().code, "shutting_down");
}

}  // namespace
}  // namespace sindri::broker
