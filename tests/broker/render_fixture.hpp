#pragma once
// A broker on SQLite with render settings of the test's choosing, and what
// the render tests make on it: generators, templates, stacks, dry runs and
// instantiations.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker_process.hpp"
#include "value/json.hpp"

namespace sindri_test {

struct RenderGenerator {
  std::string id;
  std::string pak;
  std::unique_ptr<sindri::http::Client> client;
};

class RenderBroker {
 public:
  explicit RenderBroker(const std::vector<std::string>& flags) : broker_(Backend::Sqlite) {
    broker_.start(flags);
    admin_ = broker_.client(broker_.admin_pak());
  }

  BrokerProcess& process() { return broker_; }
  sindri::http::Client& admin() { return *admin_; }

  RenderGenerator make_generator(const std::string& name) {
    Reply reply = call(*admin_, "POST", "/api/v1/generators", body_of({{"name", sindri::Value(name)}}));
    EXPECT_EQ(reply.status, 201) << reply.body;
    const sindri::Value* generator = reply.json.find("generator");
    const std::string pak = text_of(reply.json, "pak");
    return {generator != nullptr ? text_of(*generator, "id") : "", pak, broker_.client(pak)};
  }

  // The template's id; "" (and a failure reported) when it was refused.
  std::string make_template(const RenderGenerator& owner, std::string_view name, std::string_view content,
                            std::string_view schema = R"({"type": "object"})") {
    Reply created = call(*owner.client, "POST", "/api/v1/templates",
                         body_of({{"name", sindri::Value(name)},
                                  {"template_content", sindri::Value(content)},
                                  {"parameters_schema", sindri::Value(schema)}}));
    EXPECT_EQ(created.status, 201) << created.body;
    return text_of(created.json, "id");
  }

  std::string make_stack(const RenderGenerator& owner, std::string_view name) {
    Reply stack = call(*owner.client, "POST", "/api/v1/stacks",
                       body_of({{"name", sindri::Value(name)}, {"generator_id", sindri::Value(owner.id)}}));
    EXPECT_EQ(stack.status, 201) << stack.body;
    return text_of(stack.json, "id");
  }

  static std::string body_of(sindri::Object members) { return sindri::to_json(sindri::Value(std::move(members))); }

  // `parameters` is JSON text.
  static Reply dry_run(sindri::http::Client& client, const std::string& template_id, std::string_view parameters) {
    return call(client, "POST", "/api/v1/templates/" + template_id + "/render",
                R"({"parameters":)" + std::string(parameters) + "}");
  }
  static Reply instantiate(sindri::http::Client& client, const std::string& stack_id, const std::string& template_id,
                           std::string_view parameters) {
    return call(client, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects/from-template",
                R"({"template_id":")" + template_id + R"(","parameters":)" + std::string(parameters) + "}");
  }

 private:
  BrokerProcess broker_;
  std::unique_ptr<sindri::http::Client> admin_;
};

// A ConfigMap, the smallest object a template can make.
constexpr std::string_view kConfigMapTemplate = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name | default(value="settings") }}
data:
  greeting: hello
)";

}  // namespace sindri_test
