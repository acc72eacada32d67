// render.max_steps, render.max_duration and render.max_output_bytes bound
// the dry run and instantiation, each error naming the setting that stopped
// the render, and 0 lifts a limit (seed 000: an operator may trust every
// template author).

#include <string>

#include "render_fixture.hpp"

namespace sindri_test {
namespace {

// Work to taste: `doublings` make a string of 2^(doublings+1) bytes, each
// round replaces over all of it twice.
constexpr std::string_view kHeavyTemplate =
    R"({% set_global text = "ab" %}{% for i in range(end=doublings) %}{% set_global text = text ~ text %}{% endfor %})"
    R"({% for i in range(end=rounds) %}{% set_global text = text | replace(from="a", to="b") | replace(from="b", to="a") %}{% endfor %})"
    R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: heavy
data:
  size: "{{ text | length }}"
)";

// `lines` entries in a ConfigMap.
constexpr std::string_view kLongTemplate = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: long
data:
{% for i in range(end=lines) %}  key{{ i }}: "value {{ i }}"
{% endfor %})";

void expect_stopped_by(const Reply& reply, const std::string& setting) {
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_EQ(text_of(reply.json, "code"), "template_render_failed") << reply.body;
  EXPECT_NE(text_of(reply.json, "message").find("the broker's " + setting + " setting stopped it"), std::string::npos)
      << reply.body;
  const sindri::Value* details = reply.json.find("details");
  ASSERT_NE(details, nullptr) << reply.body;
  EXPECT_EQ(text_of(*details, "setting"), setting) << reply.body;
}

TEST(RenderLimits, MaxStepsStopsTheDryRunAndInstantiationNamingTheSetting) {
  RenderBroker broker({"--render-max-steps", "5000"});
  RenderGenerator owner = broker.make_generator("steps");
  const std::string template_id = broker.make_template(owner, "long", kLongTemplate);
  const std::string stack_id = broker.make_stack(owner, "steps");
  EXPECT_EQ(RenderBroker::dry_run(*owner.client, template_id, R"({"lines": 3})").status, 200);
  expect_stopped_by(RenderBroker::dry_run(*owner.client, template_id, R"({"lines": 5000})"), "render.max_steps");
  expect_stopped_by(RenderBroker::instantiate(*owner.client, stack_id, template_id, R"({"lines": 5000})"),
                    "render.max_steps");
  Reply objects = call(*owner.client, "GET", "/api/v1/stacks/" + stack_id + "/deployment-objects");
  EXPECT_EQ(objects.json.size(), 0u) << objects.body;
}

TEST(RenderLimits, MaxOutputBytesStopsARenderNamingTheSetting) {
  RenderBroker broker({"--render-max-output-bytes", "2000"});
  RenderGenerator owner = broker.make_generator("output");
  const std::string template_id = broker.make_template(owner, "long", kLongTemplate);
  const std::string stack_id = broker.make_stack(owner, "output");
  EXPECT_EQ(RenderBroker::instantiate(*owner.client, stack_id, template_id, R"({"lines": 3})").status, 201);
  expect_stopped_by(RenderBroker::dry_run(*owner.client, template_id, R"({"lines": 1000})"), "render.max_output_bytes");
  // A string built past the limit is stopped before it is output.
  const std::string heavy_id = broker.make_template(owner, "heavy", kHeavyTemplate);
  expect_stopped_by(RenderBroker::dry_run(*owner.client, heavy_id, R"({"doublings": 12, "rounds": 0})"),
                    "render.max_output_bytes");
}

TEST(RenderLimits, MaxDurationStopsARenderNamingTheSetting) {
  RenderBroker broker({"--render-max-duration", "0.001", "--render-max-steps", "0"});
  RenderGenerator owner = broker.make_generator("duration");
  const std::string template_id = broker.make_template(owner, "heavy", kHeavyTemplate);
  expect_stopped_by(RenderBroker::dry_run(*owner.client, template_id, R"({"doublings": 20, "rounds": 20})"),
                    "render.max_duration");
}

TEST(RenderLimits, ZeroLiftsTheLimit) {
  const std::string heavy = R"({"doublings": 20, "rounds": 20})";
  // No deadline, so that a slow machine (a sanitizer's build) meets the step limit first.
  RenderBroker bounded({"--render-max-duration", "0"});
  RenderGenerator owner = bounded.make_generator("bounded");
  expect_stopped_by(RenderBroker::dry_run(*owner.client, bounded.make_template(owner, "heavy", kHeavyTemplate), heavy),
                    "render.max_steps");

  RenderBroker unbounded({"--render-max-steps", "0", "--render-max-duration", "0", "--render-max-output-bytes", "0"});
  RenderGenerator trusted = unbounded.make_generator("trusted");
  Reply rendered =
      RenderBroker::dry_run(*trusted.client, unbounded.make_template(trusted, "heavy", kHeavyTemplate), heavy);
  EXPECT_EQ(rendered.status, 200) << rendered.body;
}

TEST(RenderLimits, ARenderThatThrowsIsAnswered500AndTheBrokerServesOn) {
  // Without limits nothing bounds range()'s list before it is reserved: a
  // list past what a vector can hold throws.
  RenderBroker broker({"--render-max-steps", "0", "--render-max-duration", "0", "--render-max-output-bytes", "0"});
  RenderGenerator owner = broker.make_generator("throws");
  const std::string template_id = broker.make_template(
      owner, "throws", std::string(kConfigMapTemplate) + "  size: \"{{ range(end=count) | length }}\"\n");
  Reply thrown = RenderBroker::dry_run(*owner.client, template_id, R"({"count": 576460752303423489})");
  EXPECT_EQ(thrown.status, 500) << thrown.body;
  EXPECT_EQ(text_of(thrown.json, "code"), "internal_error") << thrown.body;
  EXPECT_EQ(call(broker.admin(), "GET", "/healthz").status, 200);
  EXPECT_EQ(RenderBroker::dry_run(*owner.client, template_id, R"({"count": 2})").status, 200);
}

}  // namespace
}  // namespace sindri_test
