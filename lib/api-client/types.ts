// Response shapes of the public REST API as the console reads them (interface.md + behaviour.md).
import type { Links, Meta } from "@/lib/http/pagination";

export type { Links, Meta };

export interface Resource<A, T extends string = string> {
  id: string;
  type: T;
  attributes: A;
}

export interface ListResponse<A> {
  data: Resource<A>[];
  links?: Links;
  meta?: Meta;
}

export type ConnectorKind = "source" | "destination";

export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  secret?: boolean;
  readOnly?: boolean;
  order?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  items?: JsonSchema;
  [key: string]: unknown;
};

export interface ConnectorAttributes {
  name: string;
  description?: string | null;
  connector_type: ConnectorKind;
  connector_name: string;
  workspace_id: number;
  configuration: Record<string, unknown>;
  icon?: string;
  category?: string;
  created_at: string;
  updated_at: string;
}
export type Connector = Resource<ConnectorAttributes>;

export interface ConnectorDefinition {
  name: string;
  title: string;
  connector_type: ConnectorKind;
  category: string;
  sub_category?: string;
  icon?: string;
  documentation_url?: string;
  connector_spec: { connection_specification: JsonSchema; stream_type?: string; secret_target_fields?: string[]; [key: string]: unknown };
}

export interface Stream {
  name: string;
  url?: string;
  json_schema: JsonSchema;
  batch_support: boolean;
  batch_size: number;
  request_method?: string;
  request_rate_limit?: number;
  request_rate_limit_unit?: string;
  request_rate_concurrency?: number;
  primary_key?: string[];
}

export interface CatalogBody {
  streams: Stream[];
  request_rate_limit?: number;
  request_rate_limit_unit?: string;
  request_rate_concurrency?: number;
}

export interface CatalogAttributes {
  connector_id: number;
  workspace_id: number;
  catalog: CatalogBody;
  catalog_hash?: string;
}
export type Catalog = Resource<CatalogAttributes>;

export interface ModelAttributes {
  name: string;
  description?: string | null;
  query: string;
  query_type: string;
  configuration?: Record<string, unknown> | null;
  primary_key: string;
  connector_id: number;
  connector?: { id: number | string; name: string; connector_name?: string } | null;
  created_at: string;
  updated_at: string;
}
export type Model = Resource<ModelAttributes>;

export type MappingType = "standard" | "static" | "template";
export interface Mapping {
  from: unknown;
  to: string;
  mapping_type: MappingType;
}

export interface LastRunSummary {
  id?: number | string;
  status?: string;
  started_at?: string | null;
  finished_at?: string | null;
}

export interface SyncAttributes {
  name?: string | null;
  description?: string | null;
  source_id: number;
  destination_id: number;
  model_id: number;
  configuration: Mapping[] | Record<string, unknown>;
  schedule_type: string;
  sync_mode: string;
  sync_interval?: number | null;
  sync_interval_unit?: string | null;
  cron_expression?: string | null;
  timezone?: string | null;
  cursor_field?: string | null;
  current_cursor_field?: string | null;
  detect_deletes: boolean;
  stream_name: string;
  status: string;
  next_run_at?: string | null;
  last_run?: LastRunSummary | null;
  source?: { id?: number | string; name?: string; connector_name?: string } | null;
  destination?: { id?: number | string; name?: string; connector_name?: string } | null;
  model?: { id?: number | string; name?: string } | null;
  created_at: string;
  updated_at: string;
}
export type Sync = Resource<SyncAttributes>;

export interface SyncRunAttributes {
  sync_id: number;
  status: string;
  sync_run_type: string;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
  total_query_rows: number | null;
  total_rows?: number | null;
  processed_rows?: number | null;
  skipped_rows: number | null;
  successful_rows: number | null;
  failed_rows: number | null;
  error: string | null;
  /** Set while the run is paused: it waits for its destination until then. */
  waiting_until?: string | null;
  /** Milliseconds spent per phase. */
  timings?: { query?: number; diff?: number; load?: number; wait?: number; record?: number } | null;
  created_at: string;
  updated_at: string;
}
export type SyncRun = Resource<SyncRunAttributes>;

export interface SyncRecordAttributes {
  sync_id: number;
  sync_run_id: number;
  record: Record<string, unknown>;
  status: string;
  action: string;
  error: string | null;
  /** What was sent for the record and what the destination answered, as text; level info or error. */
  logs?: { request: string; response: string; level: string } | null;
  primary_key?: string | null;
  created_at: string;
  updated_at: string;
}
export type SyncRecord = Resource<SyncRecordAttributes>;

export type Crud = { create: boolean; read: boolean; update: boolean; delete: boolean };
export interface Policies {
  permissions: Record<string, Crud>;
}

export interface RoleAttributes {
  role_name: string;
  role_desc: string;
  role_type?: string;
  workspace_id?: number | null;
  policies: Policies;
  created_at: string;
  updated_at: string;
}
export type Role = Resource<RoleAttributes>;

export interface SyncConfigurations {
  data: {
    configurations: {
      catalog_mapping_types: {
        standard: string;
        static: Record<string, { type: string; description: string }>;
        template: {
          variable: Record<string, { type: string; description: string; value: string }>;
          filter: Record<string, { description: string; value: string }>;
        };
      };
    };
  };
}
