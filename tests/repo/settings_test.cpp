// The settings lifecycle: defaults, shared settings, the project's settings,
// subscriptions, and validation naming each setting's origin.

#include <gtest/gtest.h>

#include "repo/repo_fixture.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class Settings : public RepoTest {
 protected:
  void SetUp() override {
    RepoTest::SetUp();
    make_template("default", "service_monitor",
                  R"({"name": "Service monitor", "shared_settings": {"metrics_port": 9090}})");
    write("default/service_monitor/files/monitor.txt.tera", "monitor {{ metrics_port }}\n");
    make_template("default", "deployment",
                  R"({"name": "Deployment", "default_settings": {"replicas": 2}, "setting_subscriptions": ["metrics_port"]})",
                  R"({"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 1},
                      "metrics_port": {"type": "integer", "maximum": 65535}}})");
    write("default/deployment/files/deployment.txt.tera", "replicas {{ replicas }} port {{ metrics_port }}\n");
    make_template("default", "network_policy",
                  R"({"name": "Network policy", "setting_subscriptions": ["metrics_port"]})");
    write("default/network_policy/files/policy.txt.tera", "policy {{ metrics_port }}\n");
  }
  const Value& setting(const Plan& plan, const std::string& tpl, const std::string& name) {
    for (const AppliedTemplate& applied : plan.templates) {
      if (applied.tpl.name() == tpl) return *applied.settings.find(name);
    }
    static const Value none;
    ADD_FAILURE() << "no template " << tpl;
    return none;
  }
  std::string project_path() const { return (project_dir() / "sindri-templates.yaml").string(); }
};

TEST_F(Settings, SubscribersReadThePublishersDefault) {
  project_file("sindri_templates:\n  version: 2\n  templates: [service_monitor, deployment, network_policy]\n");
  const auto files = render();
  EXPECT_EQ(find_file(files, "monitor.txt")->bytes, "monitor 9090\n");
  EXPECT_EQ(find_file(files, "deployment.txt")->bytes, "replicas 2 port 9090\n");
  EXPECT_EQ(find_file(files, "policy.txt")->bytes, "policy 9090\n");
}

TEST_F(Settings, TheProjectSetsASharedSettingOnThePublisherForEverySubscriberUnlessSetOnTheSubscriber) {
  // The subscriber comes before the publisher: the publisher's value after
  // the project's settings counts, whatever the order.
  project_file(R"(sindri_templates:
  version: 2
  templates: [deployment, network_policy, service_monitor]
service_monitor:
  metrics_port: 9100
network_policy:
  metrics_port: 8000
deployment:
  replicas: 3
)");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "");
  EXPECT_EQ(setting(*planned, "deployment", "metrics_port"), Value(9100));
  EXPECT_EQ(setting(*planned, "deployment", "replicas"), Value(3));
  EXPECT_EQ(setting(*planned, "network_policy", "metrics_port"), Value(8000));
  EXPECT_EQ(setting(*planned, "service_monitor", "metrics_port"), Value(9100));
}

TEST_F(Settings, ASubscriptionWhosePublisherIsNotAppliedLeavesTheSettingAbsent) {
  write("default/deployment/files/deployment.txt.tera",
        "replicas {{ replicas }}{% if metrics_port is defined %} port {{ metrics_port }}{% endif %}\n");
  project_file("sindri_templates:\n  version: 2\n  templates: [deployment]\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "");
  EXPECT_EQ(planned->templates[0].settings.find("metrics_port"), nullptr);
  EXPECT_EQ(find_file(render(), "deployment.txt")->bytes, "replicas 2\n");
}

TEST_F(Settings, TheProjectSetsASubscribedSettingWhosePublisherIsNotApplied) {
  project_file("sindri_templates:\n  version: 2\n  templates: [deployment]\ndeployment:\n  metrics_port: 9300\n");
  EXPECT_EQ(find_file(render(), "deployment.txt")->bytes, "replicas 2 port 9300\n");
}

TEST_F(Settings, ASubscriptionNoTemplateOfTheSourcesPublishesIsAnError) {
  make_template("default", "logging", R"({"name": "Logging", "setting_subscriptions": ["log_level"]})");
  project_file("sindri_templates:\n  version: 2\n  templates: [logging]\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems),
            "template `logging` subscribes to shared setting `log_level`, which no template of the sources publishes");
}

TEST_F(Settings, AViolationFromTheProjectFileNamesItsLineAndColumn) {
  project_file(R"(sindri_templates:
  version: 2
  templates: [service_monitor, deployment]
deployment:
  replicas: 0
)");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "template `deployment`: /replicas: must be at least 1, got 0 (from the project "
                                       "file, " + project_path() + ":5:13)");
}

TEST_F(Settings, AViolationFromADefaultNamesTheTemplateJson) {
  make_template("default", "deployment",
                R"({"name": "Deployment", "default_settings": {"replicas": "two"}})",
                R"({"type": "object", "properties": {"replicas": {"type": "integer"}}})");
  project_file("sindri_templates:\n  version: 2\n  templates: [deployment]\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "template `deployment`: /replicas: must be integer, got string (from its "
                                       "default, " + (root_ / "default/deployment/template.json").string() + ":1:57)");
}

TEST_F(Settings, AViolationFromAPublisherNamesItAndWhereItsValueCameFrom) {
  project_file(R"(sindri_templates:
  version: 2
  templates: [service_monitor, deployment]
service_monitor:
  metrics_port: 70000
)");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems),
            "template `deployment`: /metrics_port: must be at most 65535, got 70000 (from shared setting `metrics_port` "
            "published by `service_monitor`, from the project file, " + project_path() + ":5:17)");
}

TEST_F(Settings, ARequiredSettingMayComeFromTheProject) {
  make_template("default", "app", R"({"name": "App"})",
                R"({"type": "object", "required": ["image"], "properties": {"image": {"type": "string"}}})");
  project_file("sindri_templates:\n  version: 2\n  templates: [app]\napp:\n  image: nginx\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "");
}

TEST_F(Settings, ARequiredSettingNobodySetsIsOneError) {
  make_template("default", "app", R"({"name": "App"})",
                R"({"type": "object", "required": ["image"], "properties": {"image": {"type": "string"}}})");
  project_file("sindri_templates:\n  version: 2\n  templates: [app]\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems),
            "template `app`: settings: missing required property `image` (from the settings of `app`)");
}

TEST_F(Settings, SettingsForATemplateNotAppliedAreAnError) {
  project_file("sindri_templates:\n  version: 2\n  templates: [service_monitor]\ndeploymnt:\n  replicas: 3\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems),
            project_path() + ":5:3: settings for `deploymnt`, which is not an applied template");
}

TEST_F(Settings, ProjectSettingsMergeDeeplyOverDefaults) {
  make_template("default", "app", R"({"name": "App", "default_settings": {"labels": {"team": "a", "tier": "web"}}})");
  write("default/app/files/labels.txt.tera", "{{ labels.team }} {{ labels.tier }}\n");
  project_file("sindri_templates:\n  version: 2\n  templates: [app]\napp:\n  labels:\n    team: b\n");
  const auto files = render();
  EXPECT_EQ(find_file(files, "labels.txt")->bytes, "b web\n");
}

}  // namespace
}  // namespace sindri::repo
