// Response shapes of the public REST API as the console reads them: the schemas of the OpenAPI
// document (lib/api-client/generated, from the serializers' zod schemas), never a second copy.
import type { components } from "./generated/openapi";
import type { RATE_LIMIT_UNITS, REQUEST_METHODS } from "@/lib/validation/catalogs";

type Schemas = components["schemas"];

export type RequestMethod = (typeof REQUEST_METHODS)[number];
export type RateLimitUnit = (typeof RATE_LIMIT_UNITS)[number];

export interface Resource<A, T extends string = string> {
  id: string;
  type: T;
  attributes: A;
}

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
  /** An earlier name of another field, kept for settings saved with it: the form shows it only when set. */
  deprecated?: boolean;
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

export type Connector = Schemas["Connector"];
export type ConnectorAttributes = Connector["attributes"];
export type ConnectorKind = ConnectorAttributes["connector_type"];
export type ConnectorDefinition = Schemas["ConnectorDefinition"];
export type ConnectionStatus = Schemas["ConnectionStatus"];

export type Catalog = Schemas["Catalog"];
export type CatalogAttributes = Catalog["attributes"];

export type Model = Schemas["Model"];
export type ModelAttributes = Model["attributes"];

export type Sync = Schemas["Sync"];
export type SyncAttributes = Sync["attributes"];

export type SyncRun = Schemas["SyncRun"];
export type SyncRunAttributes = SyncRun["attributes"];

/** POST /syncs/{id}/plan: what the next run would do (docs/plan-and-guard.md). */
export type SyncPlan = Schemas["SyncPlan"]["data"];
export type PlanSample = Schemas["PlanSample"];
export type PlanCounts = Schemas["PlanCounts"];

export type SyncRecord = Schemas["SyncRecord"];
export type SyncRecordAttributes = SyncRecord["attributes"];

export type Policies = Schemas["Policies"];
export type Crud = NonNullable<Policies["permissions"][keyof Policies["permissions"]]>;
export type Role = Schemas["Role"];
export type RoleAttributes = Role["attributes"];

export type Member = Schemas["Member"];
export type MemberAttributes = Member["attributes"];
export type ApiToken = Schemas["ApiToken"];
export type ApiTokenAttributes = ApiToken["attributes"];
export type CreatedApiToken = Schemas["CreatedApiToken"];

/** One field mapping of a sync's configuration (the array form). */
export type Mapping = Extract<SyncAttributes["configuration"], unknown[]>[number];
export type MappingType = Mapping["mapping_type"];
export type NullPolicy = NonNullable<Mapping["null_policy"]>;

export interface Stream {
  name: string;
  url?: string;
  json_schema: JsonSchema;
  batch_support: boolean;
  batch_size: number;
  request_method?: RequestMethod;
  request_rate_limit?: number;
  request_rate_limit_unit?: RateLimitUnit;
  request_rate_concurrency?: number;
  primary_key?: string[];
  /** `fetch` for tables (SQL sources and destinations), `create` for APIs records are posted to. */
  action?: "fetch" | "create" | "update" | "delete";
}

export interface CatalogBody {
  streams: Stream[];
  request_rate_limit?: number;
  request_rate_limit_unit?: RateLimitUnit;
  request_rate_concurrency?: number;
}

export type SyncConfigurations = { data: { configurations: { catalog_mapping_types: CatalogMappingTypes } } };
export interface CatalogMappingTypes {
  standard: string;
  static: Record<string, { type: string; description: string }>;
  template: {
    variable: Record<string, { type: string; description: string; value: string }>;
    filter: Record<string, { description: string; value: string }>;
  };
}

export type SyncRecordDetail = Schemas["SyncRecordDetail"];
