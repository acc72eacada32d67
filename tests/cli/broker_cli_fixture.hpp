#pragma once
// A test fixture for the client verbs: a real broker (`sindri serve` on
// SQLite), an admin and a generator with their PAKs and HTTP clients, and
// the `sindri` binary run as either of them.

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "broker/broker_process.hpp"
#include "sindri_process.hpp"
#include "value/value.hpp"

namespace sindri_test {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

class BrokerCli : public SindriTest {
 protected:
  void SetUp() override {
    SindriTest::SetUp();
    // The developer's own settings must not leak into the runs.
    unsetenv("SINDRI_PAK");
    unsetenv("SINDRI_BROKER");
    broker_.start();
    admin_ = broker_.client(broker_.admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"ci"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    generator_pak_ = text_of(generator.json, "pak");
    generator_ = broker_.client(generator_pak_);
  }

  Outcome sindri_as(const std::string& pak, std::vector<std::string> args) {
    args.insert(args.end(), {"--broker", broker_.url(), "--pak", pak});
    return sindri(args);
  }
  Outcome as_admin(const std::vector<std::string>& args) { return sindri_as(broker_.admin_pak(), args); }
  Outcome as_generator(const std::vector<std::string>& args) { return sindri_as(generator_pak_, args); }

  // A stack made over the API; its id.
  std::string make_stack(const std::string& name) {
    Reply stack = call(*generator_, "POST", "/api/v1/stacks", R"({"name":")" + name + R"("})");
    EXPECT_EQ(stack.status, 201) << stack.body;
    return text_of(stack.json, "id");
  }

  // The PAK printed by a create or rotate-pak verb in table form.
  static std::string printed_pak(const std::string& out) {
    const std::string marker = "authenticates with it): ";
    const size_t at = out.find(marker);
    if (at == std::string::npos) return {};
    return out.substr(at + marker.size(), out.find('\n', at) - at - marker.size());
  }

  struct Agent {
    std::string id;
    std::string pak;
  };
  // An agent registered over the API by the admin, carrying `label` when
  // one is given (stacks with that label are then its targets).
  Agent make_agent(const std::string& name, const std::string& label = {}) {
    Reply made = call(*admin_, "POST", "/api/v1/agents", R"({"name":")" + name + R"(","cluster_name":"c"})");
    EXPECT_EQ(made.status, 201) << made.body;
    Agent agent{text_of(*made.json.find("agent"), "id"), text_of(made.json, "initial_pak")};
    if (!label.empty()) {
      Reply labeled = call(*admin_, "POST", "/api/v1/agents/" + agent.id + "/labels", "\"" + label + "\"");
      EXPECT_EQ(labeled.status, 201) << labeled.body;
    }
    return agent;
  }

  sindri::Value deployment_objects(const std::string& stack_id) {
    Reply objects = call(*admin_, "GET", "/api/v1/stacks/" + stack_id + "/deployment-objects");
    EXPECT_EQ(objects.status, 200) << objects.body;
    return objects.json;
  }

  BrokerProcess broker_{Backend::Sqlite};
  std::unique_ptr<sindri::http::Client> admin_;
  std::unique_ptr<sindri::http::Client> generator_;
  std::string generator_id_;
  std::string generator_pak_;
};

}  // namespace sindri_test
