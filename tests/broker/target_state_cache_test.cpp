// The target-state cache answers only at the generation an answer was built
// at, and lets go of answers no request can be given again.

#include <gtest/gtest.h>

#include "broker/target_state_cache.hpp"

namespace sindri::broker {
namespace {

std::shared_ptr<const http::SharedBody> body(const std::string& text) { return http::SharedBody::make(text); }

TEST(TargetStateCacheTest, FindsAnAnswerAtExactlyItsGeneration) {
  TargetStateCache cache;
  auto answer = body("[1]");
  cache.store("agent-a/full", 7, answer);
  EXPECT_EQ(cache.find("agent-a/full", 7), answer);
  EXPECT_EQ(cache.find("agent-a/full", 8), nullptr);
  EXPECT_EQ(cache.find("agent-a/incremental", 7), nullptr);
}

TEST(TargetStateCacheTest, ANewerGenerationDropsEveryOlderAnswer) {
  TargetStateCache cache;
  auto idle_agent = body("[\"idle\"]");
  std::weak_ptr<const http::SharedBody> idle_agent_alive = idle_agent;
  cache.store("idle/full", 1, std::move(idle_agent));
  cache.store("busy/full", 1, body("[\"busy 1\"]"));
  cache.store("busy/incremental", 2, body("[\"busy 2\"]"));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(idle_agent_alive.expired()) << "an agent that stopped polling keeps its answer for ever";
  EXPECT_EQ(cache.find("busy/full", 1), nullptr);
  cache.store("busy/full", 2, body("[\"busy 2 full\"]"));
  EXPECT_EQ(cache.size(), 2u) << "answers at the newest generation stay";
}

TEST(TargetStateCacheTest, ALateAnswerFromAnOlderGenerationIsNotKept) {
  TargetStateCache cache;
  auto current = body("[\"current\"]");
  cache.store("agent/full", 5, current);
  cache.store("agent/full", 4, body("[\"built before the change\"]"));
  cache.store("other/full", 4, body("[\"also late\"]"));
  EXPECT_EQ(cache.find("agent/full", 5), current);
  EXPECT_EQ(cache.find("other/full", 4), nullptr);
  EXPECT_EQ(cache.size(), 1u);
}

}  // namespace
}  // namespace sindri::broker
