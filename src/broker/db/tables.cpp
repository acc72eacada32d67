#include "broker/db/tables.hpp"

#include <string>

namespace sindri::broker {
namespace {

// Ids are UUID text and timestamps RFC 3339 text (see ids.hpp) in both
// dialects, so that every statement is written once. SQLite takes BOOLEAN and
// BIGINT as type names (storing 0/1 and integers), so the tables are written
// once too; only the sequence column differs (@SEQUENCE_ID@). Soft delete
// everywhere: deleted_at is set, rows stay; partial indexes cover the live
// rows.

constexpr std::string_view kCoreTables = R"sql(
CREATE TABLE app_initialization (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  initialized_at TEXT NOT NULL
);
CREATE TABLE admin_role (
  id TEXT PRIMARY KEY,
  pak_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX admin_role_pak ON admin_role (pak_hash);
CREATE TABLE generators (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  pak_hash TEXT,
  is_active BOOLEAN NOT NULL DEFAULT TRUE,
  is_system BOOLEAN NOT NULL DEFAULT FALSE,
  last_active_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX generators_live_name ON generators (name) WHERE deleted_at IS NULL;
CREATE INDEX generators_pak ON generators (pak_hash) WHERE deleted_at IS NULL;
CREATE TABLE stacks (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  generator_id TEXT NOT NULL REFERENCES generators (id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX stacks_generator ON stacks (generator_id) WHERE deleted_at IS NULL;
CREATE TABLE stack_labels (
  id TEXT PRIMARY KEY,
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  label TEXT NOT NULL,
  UNIQUE (stack_id, label)
);
CREATE TABLE stack_annotations (
  id TEXT PRIMARY KEY,
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (stack_id, key)
);
CREATE TABLE deployment_objects (
  @SEQUENCE_ID@,
  id TEXT NOT NULL UNIQUE,
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  yaml_content TEXT NOT NULL,
  yaml_checksum TEXT NOT NULL,
  is_deletion_marker BOOLEAN NOT NULL DEFAULT FALSE,
  submitted_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX deployment_objects_stack ON deployment_objects (stack_id, sequence_id);
CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  cluster_name TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'ACTIVE',
  pak_hash TEXT,
  last_heartbeat TEXT,
  k8s_reachable BOOLEAN,
  k8s_api_latency_ms INTEGER,
  k8s_reported_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX agents_live_name ON agents (name, cluster_name) WHERE deleted_at IS NULL;
CREATE INDEX agents_pak ON agents (pak_hash) WHERE deleted_at IS NULL;
CREATE TABLE agent_labels (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  label TEXT NOT NULL,
  UNIQUE (agent_id, label)
);
CREATE TABLE agent_annotations (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (agent_id, key)
);
CREATE TABLE agent_targets (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  matched_by_labels BOOLEAN NOT NULL DEFAULT FALSE,
  UNIQUE (agent_id, stack_id)
);
CREATE INDEX agent_targets_stack ON agent_targets (stack_id);
CREATE TABLE agent_generators (
  agent_id TEXT NOT NULL REFERENCES agents (id),
  generator_id TEXT NOT NULL REFERENCES generators (id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (agent_id, generator_id)
);
CREATE TABLE agent_events (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  deployment_object_id TEXT NOT NULL REFERENCES deployment_objects (id),
  event_type TEXT NOT NULL,
  status TEXT NOT NULL,
  message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX agent_events_agent ON agent_events (agent_id, created_at);
CREATE INDEX agent_events_object ON agent_events (deployment_object_id, agent_id);
CREATE TABLE broker_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  generation BIGINT NOT NULL,
  credentials_generation BIGINT NOT NULL
);
INSERT INTO broker_state (id, generation, credentials_generation) VALUES (1, 0, 0);
)sql";

// Seed 000: versioned templates, their labels and annotations, the stacks
// each may go to, and the provenance of every object rendered from one.
// (generator_id, name, version) is unique with a NULL generator_id (a system
// template) counted as one owner, hence the COALESCE.
constexpr std::string_view kTemplateTables = R"sql(
CREATE TABLE stack_templates (
  id TEXT PRIMARY KEY,
  generator_id TEXT REFERENCES generators (id),
  name TEXT NOT NULL,
  description TEXT,
  version INTEGER NOT NULL,
  template_content TEXT NOT NULL,
  parameters_schema TEXT NOT NULL,
  checksum TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX stack_templates_version ON stack_templates (COALESCE(generator_id, ''), name, version);
CREATE INDEX stack_templates_live_name ON stack_templates (name) WHERE deleted_at IS NULL;
CREATE INDEX stack_templates_live_generator ON stack_templates (generator_id) WHERE deleted_at IS NULL;
CREATE TABLE template_labels (
  id TEXT PRIMARY KEY,
  template_id TEXT NOT NULL REFERENCES stack_templates (id),
  label TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (template_id, label)
);
CREATE TABLE template_annotations (
  id TEXT PRIMARY KEY,
  template_id TEXT NOT NULL REFERENCES stack_templates (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (template_id, key)
);
CREATE TABLE template_targets (
  id TEXT PRIMARY KEY,
  template_id TEXT NOT NULL REFERENCES stack_templates (id),
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  created_at TEXT NOT NULL,
  UNIQUE (template_id, stack_id)
);
CREATE INDEX template_targets_stack ON template_targets (stack_id);
CREATE TABLE rendered_deployment_objects (
  id TEXT PRIMARY KEY,
  deployment_object_id TEXT NOT NULL UNIQUE REFERENCES deployment_objects (id),
  template_id TEXT NOT NULL REFERENCES stack_templates (id),
  template_version INTEGER NOT NULL,
  template_parameters TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX rendered_deployment_objects_template ON rendered_deployment_objects (template_id, template_version);
)sql";

// The same tables; PostgreSQL has real booleans and identity columns.

std::string with_sequence_column(std::string_view tables, std::string_view column) {
  std::string sql(tables);
  constexpr std::string_view kPlaceholder = "@SEQUENCE_ID@";
  sql.replace(sql.find(kPlaceholder), kPlaceholder.size(), column);
  return sql;
}

// The target-state generation as kTargetStateShards rows, so that
// concurrent transactions on PostgreSQL bump different rows instead of
// queueing on one until the previous one commits; readers take the sum, which
// rises by one per bump. Brokers of an earlier version read the column this
// drops: stop them all before the upgrade.
std::string target_state_shards_sql() {
  std::string sql =
      "CREATE TABLE target_state_generations (\n"
      "  shard INTEGER PRIMARY KEY,\n"
      "  generation BIGINT NOT NULL\n"
      ");\n"
      "INSERT INTO target_state_generations (shard, generation) VALUES ";
  for (int shard = 0; shard < kTargetStateShards; ++shard) {
    if (shard > 0) sql += ", ";
    sql += "(" + std::to_string(shard) + ", 0)";
  }
  sql +=
      ";\nUPDATE target_state_generations SET generation = "
      "COALESCE((SELECT generation FROM broker_state WHERE id = 1), 0) WHERE shard = 0;\n"
      "ALTER TABLE broker_state DROP COLUMN generation;\n";
  return sql;
}

// Brokkr's registrations (AgentGeneratorRegistration) carry an id of their
// own. Rows of earlier versions get a random (version 4) UUID, written out in
// SQL so that the migration stays plain statements.
constexpr std::string_view kRegistrationIdsSqlite = R"sql(
ALTER TABLE agent_generators ADD COLUMN id TEXT;
UPDATE agent_generators SET id = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
  substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1) ||
  substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)));
CREATE UNIQUE INDEX agent_generators_id ON agent_generators (id);
CREATE INDEX agent_generators_generator ON agent_generators (generator_id);
)sql";
constexpr std::string_view kRegistrationIdsPostgres = R"sql(
ALTER TABLE agent_generators ADD COLUMN id TEXT;
UPDATE agent_generators SET id = gen_random_uuid()::text;
ALTER TABLE agent_generators ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX agent_generators_id ON agent_generators (id);
CREATE INDEX agent_generators_generator ON agent_generators (generator_id);
)sql";

// Provenance keyed by its object's sequence id: on SQLite the table is then
// its own one-to-one index (the rowid), and neither dialect keeps the two
// text indexes (its own id, the object's id) that every instantiation wrote
// to. Reads go through the object, whose sequence id they already have. The
// two id columns go too: nothing read them, and a broker of an earlier
// version, which writes them, now fails loudly instead of letting SQLite
// pick the new key (the next rowid, another object's).
constexpr std::string_view kProvenanceBySequence = R"sql(
CREATE TABLE rendered_deployment_objects_by_sequence (
  @SEQUENCE_ID@ REFERENCES deployment_objects (sequence_id),
  template_id TEXT NOT NULL REFERENCES stack_templates (id),
  template_version INTEGER NOT NULL,
  template_parameters TEXT NOT NULL,
  created_at TEXT NOT NULL
);
INSERT INTO rendered_deployment_objects_by_sequence (deployment_object_sequence_id, template_id, template_version,
  template_parameters, created_at)
SELECT d.sequence_id, r.template_id, r.template_version, r.template_parameters, r.created_at
FROM rendered_deployment_objects r JOIN deployment_objects d ON d.id = r.deployment_object_id;
DROP TABLE rendered_deployment_objects;
ALTER TABLE rendered_deployment_objects_by_sequence RENAME TO rendered_deployment_objects;
CREATE INDEX rendered_deployment_objects_template ON rendered_deployment_objects (template_id, template_version);
)sql";


// Seed 002's audit trail: entries are never updated, only aged out; details
// is JSON text. job_turns lets one broker of many take each periodic pass
// (db/jobs.hpp).
constexpr std::string_view kAuditAndJobTables = R"sql(
CREATE TABLE audit_logs (
  @SEQUENCE_ID@,
  id TEXT NOT NULL UNIQUE,
  timestamp TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('admin', 'agent', 'generator', 'system')),
  actor_id TEXT,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT,
  details TEXT,
  ip_address TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX audit_logs_timestamp ON audit_logs (timestamp);
CREATE INDEX audit_logs_actor ON audit_logs (actor_type, actor_id, timestamp);
CREATE INDEX audit_logs_resource ON audit_logs (resource_type, resource_id, timestamp);
CREATE INDEX audit_logs_action ON audit_logs (action, timestamp);
CREATE TABLE job_turns (
  name TEXT PRIMARY KEY,
  next_run_at TEXT NOT NULL,
  taken_by TEXT
);
)sql";

// Webhooks (seed 002): subscriptions keep their URL, auth header and signing
// secret encrypted (webhook_crypto.hpp, as hex text, so one column type
// serves both dialects); event_types, filters and target_labels are JSON
// text, and target labels have rows of their own so that an agent's claim is
// one statement. A delivery is claimable when pending or failed and due
// (next_retry_at), or acquired past its lease. webhook_key_check holds an
// HMAC of a constant under the key, so a broker with another key refuses to
// start.
constexpr std::string_view kWebhookTables = R"sql(
CREATE TABLE webhook_subscriptions (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  url_encrypted TEXT NOT NULL,
  auth_header_encrypted TEXT,
  signing_secret_encrypted TEXT,
  event_types TEXT NOT NULL,
  filters TEXT,
  target_labels TEXT,
  enabled BOOLEAN NOT NULL DEFAULT TRUE,
  max_retries INTEGER NOT NULL DEFAULT 5,
  timeout_seconds INTEGER NOT NULL DEFAULT 30,
  created_by TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX webhook_subscriptions_live ON webhook_subscriptions (created_at) WHERE deleted_at IS NULL;
CREATE TABLE webhook_subscription_labels (
  subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id),
  label TEXT NOT NULL,
  PRIMARY KEY (subscription_id, label)
);
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id),
  event_type TEXT NOT NULL,
  event_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  target_labels TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'acquired', 'success', 'failed', 'dead')),
  acquired_by TEXT,
  acquired_until TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_attempt_at TEXT,
  next_retry_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX webhook_deliveries_open ON webhook_deliveries (next_retry_at) WHERE status IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_acquired ON webhook_deliveries (acquired_until) WHERE status = 'acquired';
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
CREATE TABLE webhook_key_check (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  check_value TEXT NOT NULL,
  created_at TEXT NOT NULL
);
)sql";

// Deployment health (Brokkr's migration 10): one row per agent and object,
// replaced by each report. previous_status is the status the last report
// replaced, so that the upsert itself says whether the status changed.
constexpr std::string_view kDeploymentHealthTables = R"sql(
CREATE TABLE deployment_health (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  deployment_object_id TEXT NOT NULL REFERENCES deployment_objects (id),
  status TEXT NOT NULL CHECK (status IN ('healthy', 'degraded', 'failing', 'unknown')),
  previous_status TEXT,
  summary TEXT,
  checked_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (agent_id, deployment_object_id)
);
CREATE INDEX deployment_health_object ON deployment_health (deployment_object_id);
CREATE INDEX deployment_health_agent_status ON deployment_health (agent_id, status);
)sql";

// Work orders (Brokkr's migrations 08, 09 and 12): the active queue, the
// agents, labels and annotations each targets, and the log a work order
// moves to when it finishes. claim_expires_at is claimed_at plus the claim
// timeout, so that a statement finds lapsed claims by comparing text. And on-
// demand diagnostics (migration 11): one result per request at most. Work
// orders and diagnostics are deleted, not retired: Brokkr has no deleted_at
// on them, and the log keeps the history.
constexpr std::string_view kWorkOrderAndDiagnosticTables = R"sql(
CREATE TABLE work_orders (
  id TEXT PRIMARY KEY,
  work_type TEXT NOT NULL,
  yaml_content TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'CLAIMED', 'RETRY_PENDING')),
  claimed_by TEXT REFERENCES agents (id),
  claimed_at TEXT,
  claim_expires_at TEXT,
  claim_timeout_seconds INTEGER NOT NULL CHECK (claim_timeout_seconds > 0),
  max_retries INTEGER NOT NULL CHECK (max_retries >= 0),
  retry_count INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  backoff_seconds INTEGER NOT NULL CHECK (backoff_seconds > 0),
  next_retry_after TEXT,
  last_error TEXT,
  last_error_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK (status <> 'CLAIMED' OR (claimed_by IS NOT NULL AND claimed_at IS NOT NULL))
);
CREATE INDEX work_orders_status ON work_orders (status, work_type, created_at);
CREATE INDEX work_orders_created ON work_orders (created_at);
CREATE TABLE work_order_targets (
  id TEXT PRIMARY KEY,
  work_order_id TEXT NOT NULL REFERENCES work_orders (id),
  agent_id TEXT NOT NULL REFERENCES agents (id),
  created_at TEXT NOT NULL,
  UNIQUE (work_order_id, agent_id)
);
CREATE INDEX work_order_targets_agent ON work_order_targets (agent_id);
CREATE TABLE work_order_labels (
  id TEXT PRIMARY KEY,
  work_order_id TEXT NOT NULL REFERENCES work_orders (id),
  label TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (work_order_id, label)
);
CREATE INDEX work_order_labels_label ON work_order_labels (label);
CREATE TABLE work_order_annotations (
  id TEXT PRIMARY KEY,
  work_order_id TEXT NOT NULL REFERENCES work_orders (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (work_order_id, key, value)
);
CREATE INDEX work_order_annotations_key ON work_order_annotations (key, value);
CREATE TABLE work_order_log (
  id TEXT PRIMARY KEY,
  work_type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  claimed_at TEXT,
  completed_at TEXT NOT NULL,
  claimed_by TEXT,
  success BOOLEAN NOT NULL,
  retries_attempted INTEGER NOT NULL DEFAULT 0,
  result_message TEXT,
  yaml_content TEXT NOT NULL
);
CREATE INDEX work_order_log_completed ON work_order_log (completed_at);
CREATE INDEX work_order_log_type ON work_order_log (work_type, completed_at);
CREATE INDEX work_order_log_claimed_by ON work_order_log (claimed_by, completed_at);
CREATE TABLE diagnostic_requests (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  deployment_object_id TEXT NOT NULL REFERENCES deployment_objects (id),
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'claimed', 'completed', 'failed', 'expired')),
  requested_by TEXT,
  created_at TEXT NOT NULL,
  claimed_at TEXT,
  completed_at TEXT,
  expires_at TEXT NOT NULL
);
CREATE INDEX diagnostic_requests_agent ON diagnostic_requests (agent_id, status, created_at);
CREATE INDEX diagnostic_requests_expires ON diagnostic_requests (expires_at);
CREATE TABLE diagnostic_results (
  id TEXT PRIMARY KEY,
  request_id TEXT NOT NULL UNIQUE REFERENCES diagnostic_requests (id),
  pod_statuses TEXT NOT NULL,
  events TEXT NOT NULL,
  log_tails TEXT,
  collected_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
)sql";

// Every stack an agent has targeted, kept when the target goes: an agent may
// report events on the objects of those stacks only (removing what a stack
// it no longer targets applied included). Earlier versions kept no history:
// today's targets and the stacks of the objects an agent reported on stand
// in for it.
constexpr std::string_view kAgentTargetHistory = R"sql(
CREATE TABLE agent_target_history (
  agent_id TEXT NOT NULL REFERENCES agents (id),
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  PRIMARY KEY (agent_id, stack_id)
);
INSERT INTO agent_target_history (agent_id, stack_id) SELECT agent_id, stack_id FROM agent_targets;
INSERT INTO agent_target_history (agent_id, stack_id)
SELECT DISTINCT e.agent_id, d.stack_id FROM agent_events e JOIN deployment_objects d ON d.id = e.deployment_object_id
WHERE NOT EXISTS (SELECT 1 FROM agent_target_history h WHERE h.agent_id = e.agent_id AND h.stack_id = d.stack_id);
)sql";

// What agents stream from their clusters (Brokkr's migration 18): the
// Kubernetes events about the objects they applied and the log lines of
// the pods that opt in, kept for hours and trimmed by created_at, the
// broker's clock, so that an agent's back-dated timestamps keep nothing.
// And the one-time tickets a browser opens a live view with (it cannot set
// Authorization on a WebSocket): a hash, whom it stands for, and when it
// lapses. And, for brokers sharing a database: the notices between them too
// large for a NOTIFY, which agent's socket is open to which broker, and when
// each broker last said it was alive (a crashed broker's sockets lapse).
constexpr std::string_view kTelemetryTables = R"sql(
CREATE TABLE agent_k8s_events (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  observed_at TEXT NOT NULL,
  reason TEXT NOT NULL,
  message TEXT NOT NULL,
  event_type TEXT NOT NULL,
  source TEXT,
  involved_object TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX agent_k8s_events_stack ON agent_k8s_events (stack_id, created_at);
CREATE INDEX agent_k8s_events_created ON agent_k8s_events (created_at);
CREATE TABLE agent_pod_logs (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents (id),
  stack_id TEXT NOT NULL REFERENCES stacks (id),
  namespace TEXT NOT NULL,
  pod TEXT NOT NULL,
  container TEXT NOT NULL,
  ts TEXT NOT NULL,
  line TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX agent_pod_logs_stack ON agent_pod_logs (stack_id, created_at);
CREATE INDEX agent_pod_logs_created ON agent_pod_logs (created_at);
CREATE TABLE live_view_tickets (
  ticket_hash TEXT PRIMARY KEY,
  identity_kind TEXT NOT NULL,
  identity_id TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX live_view_tickets_expires ON live_view_tickets (expires_at);
CREATE TABLE broker_notices (
  id TEXT PRIMARY KEY,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX broker_notices_created ON broker_notices (created_at);
CREATE TABLE agent_connections (
  agent_id TEXT PRIMARY KEY REFERENCES agents (id),
  broker_id TEXT NOT NULL,
  connected_since TEXT NOT NULL
);
CREATE TABLE broker_presence (
  broker_id TEXT PRIMARY KEY,
  seen_at TEXT NOT NULL
);
)sql";

}  // namespace

std::span<const store::Migration> broker_migrations() {
  // SQLite's AUTOINCREMENT never reuses a sequence id, even after a delete.
  static const std::string core_sqlite =
      with_sequence_column(kCoreTables, "sequence_id INTEGER PRIMARY KEY AUTOINCREMENT");
  static const std::string core_postgres =
      with_sequence_column(kCoreTables, "sequence_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY");
  static const std::string target_state_shards = target_state_shards_sql();
  static const std::string provenance_sqlite =
      with_sequence_column(kProvenanceBySequence, "deployment_object_sequence_id INTEGER PRIMARY KEY");
  static const std::string provenance_postgres =
      with_sequence_column(kProvenanceBySequence, "deployment_object_sequence_id BIGINT PRIMARY KEY");
  static const std::string audit_sqlite =
      with_sequence_column(kAuditAndJobTables, "sequence_id INTEGER PRIMARY KEY AUTOINCREMENT");
  static const std::string audit_postgres =
      with_sequence_column(kAuditAndJobTables, "sequence_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY");
  static const store::Migration migrations[] = {
      {1, "core: identities, stacks, deployment objects, agents, events", core_sqlite, core_postgres},
      {2, "templates: versions, labels, annotations, targets, provenance", kTemplateTables, kTemplateTables},
      {3, "target-state generation in shards", target_state_shards, target_state_shards},
      {4, "an id for every agent registration", kRegistrationIdsSqlite, kRegistrationIdsPostgres},
      {5, "provenance keyed by its object's sequence id", provenance_sqlite, provenance_postgres},
      {6, "audit log; turns of the periodic jobs", audit_sqlite, audit_postgres},
      {7, "work orders, their targets and log; diagnostics", kWorkOrderAndDiagnosticTables,
       kWorkOrderAndDiagnosticTables},
      {8, "deployment health", kDeploymentHealthTables, kDeploymentHealthTables},
      {9, "webhook subscriptions and deliveries", kWebhookTables, kWebhookTables},
      {10, "every stack each agent has targeted", kAgentTargetHistory, kAgentTargetHistory},
      {11, "streamed telemetry; live view tickets; notices and sockets between brokers", kTelemetryTables, kTelemetryTables},
  };
  return migrations;
}

}  // namespace sindri::broker
