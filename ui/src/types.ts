// The broker's records as the console reads them (brokkr-v1.json's schemas,
// and Sindri's template extensions), one definition for every view.

export interface Generator {
  id: string;
  name: string;
  is_system?: boolean;
  deleted_at?: string | null;
}

export interface Template {
  id: string;
  name: string;
  version: number;
  description?: string | null;
  generator_id: string | null;
  template_content: string;
  parameters_schema: string;
  checksum: string;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
}

// A template's, a stack's or an agent's label.
export interface Label {
  id: string;
  label: string;
}

// A template's, a stack's or an agent's annotation.
export interface Annotation {
  id: string;
  key: string;
  value: string;
}

export interface TemplateTarget {
  id: string;
  template_id: string;
  stack_id: string;
  created_at: string;
}

export interface Stack {
  id: string;
  name: string;
  description?: string | null;
  generator_id: string;
  created_at: string;
  updated_at: string;
}

export interface DeploymentObject {
  id: string;
  stack_id: string;
  sequence_id: number;
  yaml_content: string;
  yaml_checksum: string;
  is_deletion_marker: boolean;
  submitted_at: string;
  created_at: string;
}

// GET /deployment-objects/{id}/provenance
export interface Provenance {
  deployment_object_id: string;
  template_id: string;
  template_version: number;
  parameters: unknown;
  created_at: string;
  template: Pick<Template, "id" | "name" | "version" | "generator_id" | "deleted_at">;
}

// One entry of GET /stacks/{id}/provenance
export interface StackProvenance {
  deployment_object_id: string;
  template_id: string;
  template_name: string;
  template_version: number;
  parameters: unknown;
  created_at: string;
}

// POST /templates/{id}/render
export interface Rendered {
  template_id: string;
  template_version: number;
  checksum: string;
  yaml_content: string;
}

// POST /deployment-objects/{id}/reconstruct
export interface Reconstructed {
  deployment_object_id: string;
  template_id: string;
  template_version: number;
  identical: boolean;
  stored_checksum: string;
  rendered_checksum: string;
  yaml_content: string;
}

export interface Agent {
  id: string;
  name: string;
  cluster_name: string;
  status: string;
  last_heartbeat?: string | null;
  k8s_reachable?: boolean | null;
  created_at: string;
}

// GET /fleet: measured values only, per agent.
export interface FleetRecord {
  agent_id: string;
  name: string;
  cluster_name: string;
  status: string;
  ws_connected: boolean;
  heartbeat_age_seconds?: number | null;
  last_heartbeat?: string | null;
  k8s_reachable?: boolean | null;
  k8s_api_latency_ms?: number | null;
  pending_object_count: number;
  pending_work_orders: number;
  claimed_work_orders: number;
  health_failing: number;
  health_degraded: number;
}

export interface AgentTarget {
  id: string;
  agent_id: string;
  stack_id: string;
}

export interface AgentEvent {
  id: string;
  deployment_object_id: string;
  event_type: string;
  status: string;
  message?: string | null;
  created_at: string;
}
