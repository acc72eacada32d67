// The broker's fleet records (brokkr-v1.json's schemas).

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
