// Live views and telemetry against a running broker, on both databases:
// what an agent streams over its channel is stored and read back by
// GET /stacks/{id}/events|logs, and a stack's live view sees its objects,
// agent events, health, Kubernetes events and log lines as they arrive; the
// fleet's sees connections and heartbeats. Who may open a view: as for REST,
// by header, by Brokkr's subprotocol, or by a one-time ticket.

#include <string>
#include <vector>

#include "channel_fixture.hpp"

namespace sindri_test {
namespace {

class LiveViews : public ::testing::TestWithParam<Backend>, public ChannelFixture {
 protected:
  void SetUp() override { start(GetParam()); }

  std::string stack_view() const { return "/api/v1/stacks/" + stack_id_ + "/live"; }

  std::unique_ptr<WebSocketClient> open_view(const std::string& path, const std::vector<sindri::http::Header>& headers,
                                             WebSocketEnd& failure) {
    WebSocketClientOptions options;
    options.headers = headers;
    return WebSocketClient::connect(url(path), options, failure);
  }
  // Opens the view with `pak` in Authorization, once the broker has
  // registered it, so that what is published next reaches it.
  std::unique_ptr<WebSocketClient> watch(const std::string& path, const std::string& pak) {
    const int64_t before = viewers(path);
    WebSocketEnd failure;
    auto socket = open_view(path, {{"Authorization", "Bearer " + pak}}, failure);
    EXPECT_NE(socket, nullptr) << failure.message;
    for (int i = 0; i < 500 && socket && viewers(path) == before; ++i) std::this_thread::sleep_for(10ms);
    return socket;
  }
  // The broker's viewers of the fleet, or of stacks.
  int64_t viewers(const std::string& path) {
    Reply metrics = call(*broker_->client(""), "GET", "/metrics");
    const std::string name = path.ends_with("/fleet/live") ? "sindri_ws_fleet_viewers " : "sindri_ws_stack_viewers ";
    const size_t at = metrics.body.find("\n" + name);
    return at == std::string::npos ? -1 : std::stoll(metrics.body.substr(at + 1 + name.size()));
  }

  // The next frame of `type`, skipping others; Null when none came.
  static Value next_of(WebSocketClient& socket, const std::string& type) {
    for (int i = 0; i < 20; ++i) {
      Value frame = next_frame(socket);
      if (frame.is_null()) return frame;
      if (text_of(frame, "type") == type) return *frame.find("body");
    }
    return Value();
  }

  static std::string k8s_event(const std::string& agent_id, const std::string& stack_id, const std::string& reason) {
    return R"({"type":"k8s_event","body":{"agent_id":")" + agent_id + R"(","stack_id":")" + stack_id +
           R"(","observed_at":"2026-11-27T10:00:00Z","reason":")" + reason +
           R"(","message":"Successfully pulled image","event_type":"Normal","source":"kubelet",)"
           R"("involved_object":{"api_version":"v1","kind":"Pod","namespace":"demo","name":"web-1","uid":null}}})";
  }
  static std::string log_line(const std::string& agent_id, const std::string& stack_id, const std::string& line) {
    return R"({"type":"pod_log_line","body":{"agent_id":")" + agent_id + R"(","stack_id":")" + stack_id +
           R"(","namespace":"demo","pod":"web-1","container":"app","ts":"2026-11-27T10:00:01Z","line":")" + line +
           "\"}}";
  }
  // The error frame the broker answers a refused frame with.
  static Value refusal(WebSocketClient& socket) { return next_of(socket, "error"); }
};

TEST_P(LiveViews, WhatAnAgentStreamsIsStoredAndReadNewestFirst) {
  target_stack();
  auto agent = open_agent();
  ASSERT_NE(agent, nullptr);
  ASSERT_TRUE(agent->send(k8s_event(agent_id_, stack_id_, "Pulling")));
  ASSERT_TRUE(agent->send(k8s_event(agent_id_, stack_id_, "Pulled")));
  for (const char* line : {"starting", "listening on :8080", "ready"}) {
    ASSERT_TRUE(agent->send(log_line(agent_id_, stack_id_, line)));
  }
  const std::string events_path = "/api/v1/stacks/" + stack_id_ + "/events";
  Reply events;
  for (int i = 0; i < 500; ++i) {
    events = call(*generator_, "GET", events_path);
    Reply lines = call(*generator_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs");
    if (events.json.find("events")->size() == 2 && lines.json.find("lines")->size() == 3) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(events.status, 200) << events.body;
  const Value& list = *events.json.find("events");
  ASSERT_EQ(list.size(), 2u) << events.body;
  EXPECT_EQ(text_of(*list.at(0), "reason"), "Pulled");
  EXPECT_EQ(text_of(*list.at(1), "reason"), "Pulling");
  EXPECT_EQ(text_of(*list.at(0), "agent_id"), agent_id_);
  EXPECT_EQ(text_of(*list.at(0), "source"), "kubelet");
  EXPECT_EQ(text_of(*list.at(0)->find("involved_object"), "name"), "web-1");
  EXPECT_FALSE(text_of(*list.at(0), "id").empty());
  const Value& retention = *events.json.find("retention");
  EXPECT_EQ(retention.find("retention_ceiling_seconds")->get_int(), 21600);
  EXPECT_EQ(text_of(retention, "oldest_available_ts"), text_of(*list.at(1), "created_at"));

  Reply lines = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs?limit=2");
  ASSERT_EQ(lines.status, 200) << lines.body;
  const Value& page = *lines.json.find("lines");
  ASSERT_EQ(page.size(), 2u) << lines.body;
  EXPECT_EQ(text_of(*page.at(0), "line"), "ready");
  EXPECT_EQ(text_of(*page.at(1), "line"), "listening on :8080");
  EXPECT_EQ(text_of(*page.at(0), "container"), "app");
  // The oldest row kept, not the oldest of the page.
  Reply all = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs");
  EXPECT_EQ(text_of(*lines.json.find("retention"), "oldest_available_ts"),
            text_of(*all.json.find("lines")->at(2), "created_at"));
  // since: nothing stored after now.
  Reply later = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs?since=2099-01-01T00:00:00Z");
  EXPECT_EQ(later.json.find("lines")->size(), 0u) << later.body;
}

TEST_P(LiveViews, BadTelemetryIsRefusedWithAFrameNamingTheFieldAndTheSocketStaysOpen) {
  target_stack();
  Reply other = call(*generator_, "POST", "/api/v1/stacks", R"({"name":"other"})");
  ASSERT_EQ(other.status, 201) << other.body;
  auto agent = open_agent();
  ASSERT_NE(agent, nullptr);
  const auto refused = [&](const std::string& frame) {
    EXPECT_TRUE(agent->send(frame));
    return refusal(*agent);
  };
  Value missing = refused(R"({"type":"k8s_event","body":{"stack_id":")" + stack_id_ +
                          R"(","observed_at":"2026-11-27T10:00:00Z","message":"m","event_type":"Normal",)"
                          R"("involved_object":{"api_version":"v1","kind":"Pod","name":"p"}}})");
  EXPECT_EQ(missing.find("status")->get_int(), 400);
  EXPECT_EQ(text_of(*missing.find("error")->find("details"), "pointer"), "/reason") << to_json(missing);
  EXPECT_EQ(text_of(missing, "in_reply_to"), "k8s_event");

  Value when = refused(R"({"type":"pod_log_line","body":{"stack_id":")" + stack_id_ +
                       R"(","namespace":"n","pod":"p","container":"c","ts":"yesterday","line":"x"}})");
  EXPECT_EQ(text_of(*when.find("error")->find("details"), "pointer"), "/ts") << to_json(when);

  Value object = refused(R"({"type":"k8s_event","body":{"stack_id":")" + stack_id_ +
                         R"(","observed_at":"2026-11-27T10:00:00Z","reason":"r","message":"m","event_type":"Normal",)"
                         R"("involved_object":{"api_version":"v1","kind":"Pod"}}})");
  EXPECT_EQ(text_of(*object.find("error")->find("details"), "pointer"), "/involved_object/name") << to_json(object);

  Value foreign = refused(log_line(agent_id_, text_of(other.json, "id"), "not mine"));
  EXPECT_EQ(foreign.find("status")->get_int(), 403) << to_json(foreign);
  Value unknown = refused(log_line(agent_id_, "00000000-0000-4000-8000-000000000000", "nowhere"));
  EXPECT_EQ(unknown.find("status")->get_int(), 404) << to_json(unknown);
  Value gap = refused(R"({"type":"log_gap","body":{"stack_id":")" + stack_id_ +
                      R"(","since_ts":"2026-11-27T10:00:00Z","dropped_count":3,"reason":"bored"}})");
  EXPECT_EQ(text_of(*gap.find("error")->find("details"), "pointer"), "/reason") << to_json(gap);

  // Still open, and a good frame is stored.
  ASSERT_TRUE(agent->send(log_line(agent_id_, stack_id_, "fine")));
  Reply lines;
  for (int i = 0; i < 500; ++i) {
    lines = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs");
    if (lines.json.find("lines")->size() > 0) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(lines.json.find("lines")->size(), 1u) << lines.body;
  EXPECT_FALSE(agent->ended().has_value());
}

TEST_P(LiveViews, AStacksViewSeesItsObjectsEventsHealthAndTelemetryAsTheyArrive) {
  target_stack();
  auto view = watch(stack_view(), generator_pak_);
  ASSERT_NE(view, nullptr);
  const std::string object_id = create_object("web");
  Value object = next_of(*view, "deployment_object");
  EXPECT_EQ(text_of(object, "id"), object_id) << to_json(object);
  EXPECT_NE(text_of(object, "yaml_content").find("name: web"), std::string::npos);

  auto agent = open_agent();
  ASSERT_NE(agent, nullptr);
  ASSERT_TRUE(agent->send(log_line(agent_id_, stack_id_, "hello")));
  Value line = next_of(*view, "pod_log_line");
  EXPECT_EQ(text_of(line, "line"), "hello") << to_json(line);
  EXPECT_FALSE(text_of(line, "id").empty()) << "shown as stored";
  ASSERT_TRUE(agent->send(k8s_event(agent_id_, stack_id_, "Scheduled")));
  EXPECT_EQ(text_of(next_of(*view, "k8s_event"), "reason"), "Scheduled");
  // A gap is shown as checked: extra fields dropped, the agent the socket's.
  ASSERT_TRUE(agent->send(R"({"type":"log_gap","body":{"stack_id":")" + stack_id_ +
                          R"(","since_ts":"2026-11-27T10:00:00+01:00","dropped_count":42,"reason":"rate_limit",)"
                          R"("padding":"not for viewers"}})"));
  Value gap = next_of(*view, "log_gap");
  EXPECT_EQ(gap.find("dropped_count")->get_int(), 42) << to_json(gap);
  EXPECT_EQ(text_of(gap, "agent_id"), agent_id_);
  EXPECT_EQ(gap.find("padding"), nullptr) << to_json(gap);
  EXPECT_EQ(text_of(gap, "since_ts").substr(0, 20), "2026-11-27T09:00:00.") << to_json(gap);

  // Over the socket as over REST: an event and a health report.
  ASSERT_TRUE(agent->send(R"({"type":"agent_event","body":{"agent_id":")" + agent_id_ +
                          R"(","deployment_object_id":")" + object_id +
                          R"(","event_type":"DEPLOY","status":"SUCCESS","message":"applied"}})"));
  Value event = next_of(*view, "agent_event");
  EXPECT_EQ(text_of(event, "message"), "applied") << to_json(event);
  auto agent_client = broker_->client(agent_pak_);
  Reply health = call(*agent_client, "PATCH", "/api/v1/agents/" + agent_id_ + "/health-status",
                      R"({"deployment_objects":[{"id":")" + object_id +
                          R"(","status":"degraded","checked_at":"2026-11-27T10:00:02Z"}]})");
  ASSERT_EQ(health.status, 200) << health.body;
  Value report = next_of(*view, "agent_health");
  EXPECT_EQ(text_of(report, "status"), "degraded") << to_json(report);
  EXPECT_EQ(text_of(report, "deployment_object_id"), object_id);
}

// An object's YAML past 1 MiB stays out of the frame, so that a viewer's
// 4 MiB queue is never overrun by one object; the viewer reads it by id.
TEST_P(LiveViews, AnObjectTooLargeForAFrameIsShownWithoutItsYaml) {
  auto view = watch(stack_view(), generator_pak_);
  ASSERT_NE(view, nullptr);
  const std::string large(1536 * 1024, 'x');
  Reply object = call(*generator_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                      R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: )" +
                          large + "\\n\"}");
  ASSERT_EQ(object.status, 201) << object.body.substr(0, 300);
  Value shown = next_of(*view, "deployment_object");
  EXPECT_EQ(text_of(shown, "id"), text_of(object.json, "id"));
  EXPECT_EQ(text_of(shown, "yaml_content"), "");
  EXPECT_TRUE(shown.find("yaml_content_omitted")->get_bool());
  EXPECT_FALSE(view->ended().has_value());
}

TEST_P(LiveViews, AStacksViewOpensAsItsStackIsReadAndRefusesBeforeTheUpgrade) {
  WebSocketEnd failure;
  EXPECT_EQ(open_view(stack_view(), {}, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 401) << failure.message;
  Reply stranger = call(*admin_, "POST", "/api/v1/generators", R"({"name":"stranger"})");
  ASSERT_EQ(stranger.status, 201);
  EXPECT_EQ(open_view(stack_view(), {{"Authorization", "Bearer " + text_of(stranger.json, "pak")}}, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 403) << failure.message;
  // Agents read no stack's telemetry over REST, and open no view, even of a
  // stack they target.
  target_stack();
  EXPECT_EQ(open_view(stack_view(), {{"Authorization", "Bearer " + agent_pak_}}, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 403) << failure.message;
  EXPECT_EQ(call(*broker_->client(agent_pak_), "POST", "/api/v1/ws/tickets").status, 403);
  const std::vector<sindri::http::Header> admin = {{"Authorization", "Bearer " + broker_->admin_pak()}};
  EXPECT_EQ(open_view("/api/v1/stacks/00000000-0000-4000-8000-000000000000/live", admin, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 404) << failure.message;
  EXPECT_EQ(open_view("/api/v1/stacks/not-an-id/live", admin, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 400) << failure.message;
  // Not a WebSocket: 426; not GET: 405 with Allow.
  EXPECT_EQ(call(*admin_, "GET", stack_view()).status, 426);
  Reply posted = call(*admin_, "POST", stack_view(), "{}");
  EXPECT_EQ(posted.status, 405) << posted.body;
}

TEST_P(LiveViews, BrowsersOpenAViewByBrokkrsSubprotocolOrAOneTimeTicket) {
  WebSocketEnd failure;
  auto view = open_view(stack_view(), {{"Sec-WebSocket-Protocol", "brokkr.v1, brokkr.pak." + generator_pak_}}, failure);
  ASSERT_NE(view, nullptr) << failure.message;
  EXPECT_EQ(view->subprotocol(), "brokkr.v1") << "only the marker is echoed, never the PAK";
  EXPECT_EQ(open_view(stack_view(), {{"Sec-WebSocket-Protocol", "brokkr.v1, brokkr.pak.brokkr_BRnotapak_x"}}, failure),
            nullptr);
  EXPECT_EQ(failure.refused_status, 401) << failure.message;

  // Offered without brokkr.v1, the PAK still opens it, and nothing is echoed.
  auto bare = open_view(stack_view(), {{"Sec-WebSocket-Protocol", "brokkr.pak." + generator_pak_}}, failure);
  ASSERT_NE(bare, nullptr) << failure.message;
  EXPECT_EQ(bare->subprotocol(), "");

  Reply ticket = call(*generator_, "POST", "/api/v1/ws/tickets");
  ASSERT_EQ(ticket.status, 201) << ticket.body;
  EXPECT_EQ(ticket.json.find("expires_in_seconds")->get_int(), 30);
  const std::string with_ticket = stack_view() + "?ticket=" + text_of(ticket.json, "ticket");
  // A plain GET (no upgrade) is refused without using the ticket up.
  EXPECT_EQ(call(*broker_->client(""), "GET", with_ticket).status, 426);
  EXPECT_NE(open_view(with_ticket, {}, failure), nullptr) << failure.message;
  EXPECT_EQ(open_view(with_ticket, {}, failure), nullptr) << "a ticket opens one view";
  EXPECT_EQ(failure.refused_status, 401) << failure.message;
  // A ticket carries its holder's rights: a generator's opens no fleet view.
  Reply second = call(*generator_, "POST", "/api/v1/ws/tickets");
  EXPECT_EQ(open_view("/api/v1/fleet/live?ticket=" + text_of(second.json, "ticket"), {}, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 403) << failure.message;
  EXPECT_EQ(call(*broker_->client(""), "POST", "/api/v1/ws/tickets").status, 401);
}

// A view goes with the credentials it was opened with.
TEST_P(LiveViews, AGeneratorsViewsCloseWhenItsPakIsRotatedOrItIsDeleted) {
  auto view = watch(stack_view(), generator_pak_);
  ASSERT_NE(view, nullptr);
  Reply ticket = call(*generator_, "POST", "/api/v1/ws/tickets");
  ASSERT_EQ(ticket.status, 201) << ticket.body;
  Reply rotated = call(*admin_, "POST", "/api/v1/generators/" + generator_id_ + "/rotate-pak");
  ASSERT_EQ(rotated.status, 201) << rotated.body;
  EXPECT_EQ(close_code(*view), 1008);
  // A ticket the old PAK took goes with it.
  WebSocketEnd failure;
  EXPECT_EQ(open_view(stack_view() + "?ticket=" + text_of(ticket.json, "ticket"), {}, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 401) << failure.message;

  // Deleted: its views close, and agents targeting its stacks are pushed
  // the stacks' deletion.
  const std::string new_pak = text_of(rotated.json, "pak");
  target_stack();
  auto agent = open_agent();
  ASSERT_NE(agent, nullptr);
  auto second = watch(stack_view(), new_pak);
  ASSERT_NE(second, nullptr);
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/generators/" + generator_id_).status, 204);
  EXPECT_EQ(close_code(*second), 1008);
  Value removal = next_of(*agent, "stack_changed");
  EXPECT_EQ(text_of(removal, "id"), stack_id_) << to_json(removal);
  EXPECT_FALSE(removal.find("deleted_at")->is_null());
}

TEST_P(LiveViews, TheFleetsViewIsTheAdminsAndSeesConnectionsAndHeartbeats) {
  WebSocketEnd failure;
  EXPECT_EQ(open_view("/api/v1/fleet/live", {{"Authorization", "Bearer " + generator_pak_}}, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 403) << failure.message;
  auto view = watch("/api/v1/fleet/live", broker_->admin_pak());
  ASSERT_NE(view, nullptr);
  auto agent = open_agent();
  ASSERT_NE(agent, nullptr);
  Value connected = next_of(*view, "fleet_update");
  EXPECT_EQ(text_of(connected, "agent_id"), agent_id_) << to_json(connected);
  EXPECT_TRUE(connected.find("ws_connected")->get_bool());
  EXPECT_EQ(text_of(connected, "name"), "a");
  ASSERT_TRUE(agent->send(R"({"type":"heartbeat","body":{"agent_id":")" + agent_id_ +
                          R"(","k8s_reachable":true,"k8s_api_latency_ms":7}})"));
  Value beat = next_of(*view, "fleet_update");
  EXPECT_EQ(beat.find("k8s_api_latency_ms")->get_int(), 7) << to_json(beat);
  EXPECT_FALSE(beat.find("last_heartbeat")->is_null());
  agent->close();
  Value gone = next_of(*view, "fleet_update");
  EXPECT_FALSE(gone.find("ws_connected")->get_bool()) << to_json(gone);
}

INSTANTIATE_TEST_SUITE_P(Backends, LiveViews, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
