// The broker's records as the stack and deployment views read them
// (brokkr-v1.json's schemas, and Sindri's provenance extension).

export interface Stack {
  id: string;
  name: string;
  description?: string | null;
  generator_id: string;
  created_at: string;
  updated_at: string;
}

export interface Label {
  id: string;
  label: string;
}

export interface Annotation {
  id: string;
  key: string;
  value: string;
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

export interface StoredTemplate {
  id: string;
  name: string;
  version: number;
  generator_id?: string | null;
  deleted_at?: string | null;
}

// GET /deployment-objects/{id}/provenance
export interface Provenance {
  deployment_object_id: string;
  template_id: string;
  template_version: number;
  parameters: unknown;
  created_at: string;
  template: StoredTemplate;
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
