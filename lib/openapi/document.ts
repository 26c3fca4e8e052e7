// The OpenAPI 3.1 document of the whole API, generated from the same zod schemas the route
// handlers validate with. OPERATIONS is the one list of every route: method, path, summary,
// permission, request schemas and the success response. GET /api/v1/openapi.json serves it and the
// console's /docs/api page renders it; lib/openapi/document.test.ts checks it against the route files.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z, type ZodType } from "zod";
import type { Action, Resource } from "@/lib/auth/permissions";
import { createApiTokenSchema } from "@/lib/validation/api-tokens";
import { listAuditLogsQuerySchema } from "@/lib/validation/audit";
import {
  forgotPasswordSchema,
  resendVerificationSchema,
  resetPasswordSchema,
  signupSchema,
  verifyUserQuerySchema,
} from "@/lib/validation/accounts";
import { changePasswordSchema, loginSchema } from "@/lib/validation/auth";
import { createCatalogSchema, updateCatalogSchema } from "@/lib/validation/catalogs";
import {
  checkConnectionSchema,
  listConnectorDefinitionsQuerySchema,
  showConnectorDefinitionQuerySchema,
} from "@/lib/validation/connector-definitions";
import {
  checkConnectorSchema,
  createConnectorSchema,
  discoverConnectorQuerySchema,
  listConnectorsQuerySchema,
  querySourceSchema,
  updateConnectorSchema,
} from "@/lib/validation/connectors";
import { createMemberSchema, updateMemberSchema } from "@/lib/validation/members";
import { createModelSchema, listModelsQuerySchema, updateModelSchema } from "@/lib/validation/models";
import { reportQuerySchema } from "@/lib/validation/reports";
import { createRoleSchema, updateRoleSchema } from "@/lib/validation/roles";
import { listSyncRecordsQuerySchema } from "@/lib/validation/sync-records";
import { listSyncRunsQuerySchema } from "@/lib/validation/sync-runs";
import {
  createSyncSchema,
  enableSyncSchema,
  listSyncsQuerySchema,
  scheduleSyncSchema,
  updateSyncSchema,
} from "@/lib/validation/syncs";
import { createWorkspaceSchema, updateWorkspaceSchema } from "@/lib/validation/workspaces";
import { setupSchema } from "@/lib/validation/setup";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/**
 * What a caller needs: a permission of its role, any membership of the selected workspace, any
 * signed-in user (whatever the Workspace-Id header), or nothing.
 */
export type OperationPermission = readonly [Resource, Action] | "member" | "user" | "public";

export interface Operation {
  operationId: string;
  method: Method;
  /** OpenAPI path template; placeholder names are the API's (they may differ from folder names). */
  path: string;
  tag: string;
  summary: string;
  permission: OperationPermission;
  /** The permission is checked in the workspace named in the path, not the Workspace-Id one. */
  inPathWorkspace?: boolean;
  query?: ZodType;
  body?: ZodType;
  /** The body may be left out. */
  bodyOptional?: boolean;
  /** Success status (default 200) and what comes back. */
  status?: 200 | 201 | 204;
  response: string;
  /** Path parameters that are strings (all others are positive integer ids). */
  stringParams?: string[];
  /** Not an endpoint: the catch-all that answers any path no route declares with a JSON 404. */
  catchAll?: true;
}

export const TAGS: { name: string; description: string }[] = [
  { name: "Authentication", description: "Sign in and out; the signed-in user." },
  {
    name: "Accounts",
    description: "Self sign-up (when enabled), email verification and password reset; public, throttled, never telling whether an address has an account.",
  },
  {
    name: "API tokens",
    description: "Long-lived tokens bound to one workspace, optionally narrowed to a role.",
  },
  {
    name: "Workspaces",
    description: "Workspaces and their members; checked against your role in the workspace of the path.",
  },
  { name: "Roles", description: "System roles (read-only) and custom roles of the workspace." },
  { name: "Audit log", description: "Who created, changed or deleted what." },
  { name: "Reports", description: "Dashboard series." },
  { name: "Connector definitions", description: "The kinds of connectors this server supports." },
  { name: "Connectors", description: "Sources and destinations of the workspace." },
  { name: "Catalogs", description: "Streams of a destination and their request settings." },
  { name: "Models", description: "Queries that define what a sync reads." },
  { name: "Syncs", description: "Source + model → destination on a schedule." },
  { name: "Sync runs", description: "Runs of a sync and the records they sent." },
  { name: "Service", description: "Health, readiness, metrics, first-run setup and this document." },
];

const WORKSPACE_ATTRIBUTES =
  "name, slug, description, region, status (active), organization_id and organization_name (one implicit organization), role_name (yours), members_count, workspace_logo_url and organization_logo_url (null), created_at, updated_at";

const LIST =
  "A page: {data: [resource], links: {self, first, prev, next, last}, meta: {page, per_page, total_count, total_pages}}.";

const CATCH_ALL_METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

/** app/api/[...path] and app/enterprise/api/[...path]: listed because they are route files, marked as no endpoint. */
const UNKNOWN_PATHS: Operation[] = CATCH_ALL_METHODS.flatMap((method) =>
  (
    [
      ["/api/{path}", "Api"],
      ["/enterprise/api/{path}", "EnterpriseApi"],
    ] as const
  ).map(([path, family]) => ({
    operationId: `unknown${family}Path${method[0].toUpperCase()}${method.slice(1)}`,
    method,
    path,
    tag: "Service",
    summary: "Unknown API paths (not an endpoint): a JSON 404",
    permission: "public" as const,
    stringParams: ["path"],
    catchAll: true as const,
    response: '404 {message, status: "not_found"} for any path under it that no endpoint declares, never an HTML page.',
  })),
);

export const OPERATIONS: Operation[] = [
  // Authentication
  {
    operationId: "login",
    method: "post",
    path: "/api/v1/login",
    tag: "Authentication",
    summary: "Exchange email and password for a bearer JWT",
    permission: "public",
    body: loginSchema,
    response:
      '{data: {type: "token", id: <jwt>, attributes: {token: <jwt>}}}. 401 for wrong credentials, 429 with Retry-After after too many failures.',
  },
  {
    operationId: "logout",
    method: "delete",
    path: "/api/v1/logout",
    tag: "Authentication",
    summary: "Revoke the session token of this request",
    permission: "user",
    response: '{data: {type: "message", id, attributes: {message}}, message}.',
  },
  {
    operationId: "getCurrentUser",
    method: "get",
    path: "/api/v1/users/me",
    tag: "Authentication",
    summary: "The signed-in user, its role here and its workspaces",
    permission: "user",
    response:
      '{data: {id, type: "users", attributes: {email, name, created_at, updated_at, workspace_id, role: {id, role_name, policies}, workspaces: [{id, name, role_name}]}}}. "Here" is the Workspace-Id workspace when you are a member of it, else your default one (never a 404).',
  },
  {
    operationId: "changePassword",
    method: "put",
    path: "/api/v1/users/me/password",
    tag: "Authentication",
    summary: "Change the signed-in user's password; every other session ends",
    permission: "user",
    body: changePasswordSchema,
    response:
      '{data: {type: "token", id: <jwt>, attributes: {token: <jwt>}}}: a fresh session token (sessions issued before the change no longer work). 403 with an API token, 422 for a wrong current_password or a common new one, 429 with Retry-After after too many wrong current passwords.',
  },
  {
    operationId: "signup",
    method: "post",
    path: "/api/v1/signup",
    tag: "Accounts",
    summary: "Create an account and a workspace of your own (when the server allows sign-up)",
    permission: "public",
    body: signupSchema,
    status: 201,
    response:
      '{data: {id: <opaque>, type: "users", attributes: {name, email, created_at, email_verification_enabled, message}}}; a verification link is mailed, and signing in works once the address is verified. The same answer when the address has an account already (that account is not changed; its owner gets a mail). 403 unless the operator set SIGNUP_ENABLED=1; 429 with Retry-After when throttled.',
  },
  {
    operationId: "forgotPassword",
    method: "post",
    path: "/api/v1/forgot_password",
    tag: "Accounts",
    summary: "Mail a password reset link (valid once, for an hour)",
    permission: "public",
    body: forgotPasswordSchema,
    response:
      '{data: {type: "message", id, attributes: {message}}}, the same whether or not an account uses the address. 429 with Retry-After when throttled.',
  },
  {
    operationId: "resetPassword",
    method: "post",
    path: "/api/v1/reset_password",
    tag: "Accounts",
    summary: "Set a new password with the token of a reset link; every session ends",
    permission: "public",
    body: resetPasswordSchema,
    response:
      '{data: {type: "message", id, attributes: {message}}}. 422 for a used, replaced, expired or unknown token, a confirmation that does not match, or a common password.',
  },
  {
    operationId: "verifyUser",
    method: "get",
    path: "/api/v1/verify_user",
    tag: "Accounts",
    summary: "Verify an account's email address with the token of its verification link",
    permission: "public",
    query: verifyUserQuerySchema,
    response: '{data: {type: "message", id, attributes: {message}}}. 422 for a used, expired or unknown token.',
  },
  {
    operationId: "resendVerification",
    method: "post",
    path: "/api/v1/resend_verification",
    tag: "Accounts",
    summary: "Mail a new verification link",
    permission: "public",
    body: resendVerificationSchema,
    response:
      '{data: {type: "message", id, attributes: {message}}}, the same whether or not the address has an account waiting for verification. 429 with Retry-After when throttled.',
  },
  {
    operationId: "nextAuthGet",
    method: "get",
    path: "/api/auth/{nextauth}",
    tag: "Authentication",
    summary: "Console sign-in internals (next-auth); not for API clients",
    permission: "public",
    response: "next-auth responses.",
    stringParams: ["nextauth"],
  },
  {
    operationId: "nextAuthPost",
    method: "post",
    path: "/api/auth/{nextauth}",
    tag: "Authentication",
    summary: "Console sign-in internals (next-auth); not for API clients",
    permission: "public",
    response: "next-auth responses.",
    stringParams: ["nextauth"],
  },

  // API tokens
  {
    operationId: "listApiTokens",
    method: "get",
    path: "/api/v1/api_tokens",
    tag: "API tokens",
    summary: "List API tokens (yours; all of the workspace for user managers), never the token itself",
    permission: ["api_token", "read"],
    response: `${LIST} Attributes: name, role_id, role_name, user_id, user_email, workspace_id, created_at, last_used_at, expires_at.`,
  },
  {
    operationId: "createApiToken",
    method: "post",
    path: "/api/v1/api_tokens",
    tag: "API tokens",
    summary: "Create an API token (shown once)",
    permission: ["api_token", "create"],
    body: createApiTokenSchema,
    status: 201,
    response:
      '{data: {id, type: "api_tokens", attributes: {name, token, role_id, role_name, expires_at, created_at}}}; the token is never shown again. 403 when role_id grants more than your rights, or, when an API token calls, when expires_at is later than its own.',
  },
  {
    operationId: "revokeApiToken",
    method: "delete",
    path: "/api/v1/api_tokens/{id}",
    tag: "API tokens",
    summary: "Revoke an API token; it stops working at once",
    permission: ["api_token", "delete"],
    status: 204,
    response: "No content.",
  },

  // Workspaces and members
  {
    operationId: "listWorkspaces",
    method: "get",
    path: "/api/v1/workspaces",
    tag: "Workspaces",
    summary: "Workspaces you are a member of",
    permission: "user",
    response: `${LIST} Attributes: ${WORKSPACE_ATTRIBUTES}. The Workspace-Id header plays no part.`,
  },
  {
    operationId: "createWorkspace",
    method: "post",
    path: "/api/v1/workspaces",
    tag: "Workspaces",
    summary: "Create a workspace; you become its Admin",
    permission: ["workspace", "create"],
    body: createWorkspaceSchema,
    status: 201,
    response: `{data: {id, type: "workspaces", attributes: {${WORKSPACE_ATTRIBUTES}}}}. The body may also come flat: {name, description, region, organization_id}.`,
  },
  {
    operationId: "getWorkspace",
    method: "get",
    path: "/api/v1/workspaces/{id}",
    tag: "Workspaces",
    summary: "Show a workspace",
    permission: ["workspace", "read"],
    inPathWorkspace: true,
    response: "{data: workspace}. 404 when you are not a member.",
  },
  {
    operationId: "updateWorkspace",
    method: "put",
    path: "/api/v1/workspaces/{id}",
    tag: "Workspaces",
    summary: "Rename a workspace or change its description or region",
    permission: ["workspace", "update"],
    inPathWorkspace: true,
    body: updateWorkspaceSchema,
    response: "{data: workspace}. Only the members sent change; the body may also come flat.",
  },
  {
    operationId: "deleteWorkspace",
    method: "delete",
    path: "/api/v1/workspaces/{id}",
    tag: "Workspaces",
    summary: "Delete a workspace and everything in it",
    permission: ["workspace", "delete"],
    inPathWorkspace: true,
    status: 204,
    response: "No content. 409 when it is your last workspace.",
  },
  {
    operationId: "listMembers",
    method: "get",
    path: "/api/v1/workspaces/{id}/members",
    tag: "Workspaces",
    summary: "Members of a workspace",
    permission: ["user", "read"],
    inPathWorkspace: true,
    response: `${LIST} Members: {id: user id, type: "members", attributes: {user_id, email, name, workspace_id, role_id, role_name, joined_at, last_login_at, created_at, updated_at}}; name and last_login_at are null until the person has used the workspace (joined_at).`,
  },
  {
    operationId: "createMember",
    method: "post",
    path: "/api/v1/workspaces/{id}/members",
    tag: "Workspaces",
    summary: "Add a member (creates the account for a new email)",
    permission: ["user", "create"],
    inPathWorkspace: true,
    body: createMemberSchema,
    status: 201,
    response:
      "{data: member}. name and password are always required (used only for a new account), so the answer never tells whether the email is registered. 403 when the role has permissions you do not hold; 409 when already a member.",
  },
  {
    operationId: "getMember",
    method: "get",
    path: "/api/v1/workspaces/{id}/members/{user_id}",
    tag: "Workspaces",
    summary: "Show a member",
    permission: ["user", "read"],
    inPathWorkspace: true,
    response: "{data: member}.",
  },
  {
    operationId: "updateMember",
    method: "put",
    path: "/api/v1/workspaces/{id}/members/{user_id}",
    tag: "Workspaces",
    summary: "Change a member's role",
    permission: ["user", "update"],
    inPathWorkspace: true,
    body: updateMemberSchema,
    response:
      "{data: member}. 403 when the new role, or the member's current one, has permissions you do not hold; 409 when demoting the last Admin.",
  },
  {
    operationId: "deleteMember",
    method: "delete",
    path: "/api/v1/workspaces/{id}/members/{user_id}",
    tag: "Workspaces",
    summary: "Remove a member (and revoke its API tokens there)",
    permission: ["user", "delete"],
    inPathWorkspace: true,
    status: 204,
    response:
      "No content. 403 when the member's role has permissions you do not hold; 409 when removing the last Admin.",
  },

  // Roles
  {
    operationId: "listRoles",
    method: "get",
    path: "/enterprise/api/v1/roles",
    tag: "Roles",
    summary: "System roles and the workspace's custom roles",
    permission: "member",
    response:
      '{data: [{id, type: "roles", attributes: {role_name, role_desc, role_type, workspace_id, policies: {permissions}, created_at, updated_at}}]} (no links).',
  },
  {
    operationId: "createRole",
    method: "post",
    path: "/enterprise/api/v1/roles",
    tag: "Roles",
    summary: "Create a custom role",
    permission: ["role", "create"],
    body: createRoleSchema,
    status: 201,
    response:
      "{data: role}. 403 when the role has permissions you (or your API token) do not hold; 409 when the name is taken.",
  },
  {
    operationId: "getRole",
    method: "get",
    path: "/enterprise/api/v1/roles/{id}",
    tag: "Roles",
    summary: "Show a role",
    permission: "member",
    response: "{data: role}.",
  },
  {
    operationId: "updateRole",
    method: "put",
    path: "/enterprise/api/v1/roles/{id}",
    tag: "Roles",
    summary: "Change a custom role",
    permission: ["role", "update"],
    body: updateRoleSchema,
    response:
      "{data: role}. 403 for system roles, for the role you act with, and when the role before or after the change has permissions you do not hold.",
  },
  {
    operationId: "deleteRole",
    method: "delete",
    path: "/enterprise/api/v1/roles/{id}",
    tag: "Roles",
    summary: "Delete a custom role",
    permission: ["role", "delete"],
    status: 204,
    response:
      "No content. 403 for system roles, the role you act with, or one with permissions you do not hold; 409 while a member or API token holds it.",
  },

  // Audit log and reports
  {
    operationId: "listAuditLogs",
    method: "get",
    path: "/api/v1/audit_logs",
    tag: "Audit log",
    summary: "The workspace's audit log, newest first",
    permission: ["audit_log", "read"],
    query: listAuditLogsQuerySchema,
    response: `${LIST} Attributes: action, resource_type, resource_id, user_id, user_email, user_name, workspace_id, metadata, created_at.`,
  },
  {
    operationId: "getReport",
    method: "get",
    path: "/api/v1/reports",
    tag: "Reports",
    summary: "Sync runs and rows over time (workspace_activity)",
    permission: ["report", "read"],
    query: reportQuerySchema,
    response:
      "{data: {sync_run_triggered?: [{time_slice, total_count, success_count, failed_count}], total_sync_run_rows?: [...]}}: one point per UTC hour (one_day) or day (one_week), empty buckets included.",
  },

  // Connector definitions, connectors, catalogs
  {
    operationId: "listConnectorDefinitions",
    method: "get",
    path: "/api/v1/connector_definitions",
    tag: "Connector definitions",
    summary: "List connector definitions",
    permission: ["connector_definition", "read"],
    query: listConnectorDefinitionsQuerySchema,
    response:
      "A bare array, as the reference answers: [{name, title, connector_type, category, sub_category, icon (absolute URL), documentation_url, connector_spec: {connection_specification (JSON Schema draft-07; secrets carry secret and multiwoven_secret), stream_type, …}}].",
  },
  {
    operationId: "getConnectorDefinition",
    method: "get",
    path: "/api/v1/connector_definitions/{name}",
    tag: "Connector definitions",
    summary: "Show a connector definition",
    permission: ["connector_definition", "read"],
    query: showConnectorDefinitionQuerySchema,
    stringParams: ["name"],
    response: "The definition as a bare object, as the reference answers: {name, title, connector_type, …, connector_spec}.",
  },
  {
    operationId: "checkConnection",
    method: "post",
    path: "/api/v1/connector_definitions/check_connection",
    tag: "Connector definitions",
    summary: "Check a connection configuration",
    permission: ["connector_definition", "create"],
    body: checkConnectionSchema,
    response:
      '{result: success | failure, details, type: "connection_status", connection_status: {status: succeeded | failed, message}} (HTTP 200 either way; the last two are the reference protocol\'s ConnectionStatus, message = details).',
  },
  {
    operationId: "listConnectors",
    method: "get",
    path: "/api/v1/connectors",
    tag: "Connectors",
    summary: "List connectors",
    permission: ["connector", "read"],
    query: listConnectorsQuerySchema,
    response: `${LIST} Secrets are masked.`,
  },
  {
    operationId: "createConnector",
    method: "post",
    path: "/api/v1/connectors",
    tag: "Connectors",
    summary: "Create a connector",
    permission: ["connector", "create"],
    body: createConnectorSchema,
    status: 201,
    response: "{data: connector}.",
  },
  {
    operationId: "getConnector",
    method: "get",
    path: "/api/v1/connectors/{id}",
    tag: "Connectors",
    summary: "Show a connector",
    permission: ["connector", "read"],
    response: "{data: connector}.",
  },
  {
    operationId: "updateConnector",
    method: "put",
    path: "/api/v1/connectors/{id}",
    tag: "Connectors",
    summary: "Update a connector",
    permission: ["connector", "update"],
    body: updateConnectorSchema,
    response: "{data: connector}.",
  },
  {
    operationId: "deleteConnector",
    method: "delete",
    path: "/api/v1/connectors/{id}",
    tag: "Connectors",
    summary: "Delete a connector",
    permission: ["connector", "delete"],
    status: 204,
    response: "No content.",
  },
  {
    operationId: "discoverConnector",
    method: "get",
    path: "/api/v1/connectors/{id}/discover",
    tag: "Connectors",
    summary: "The connector's streams (stored, or discovered again)",
    permission: ["connector", "read"],
    query: discoverConnectorQuerySchema,
    response:
      '{data: {id, type: "catalogs", attributes: {connector_id, workspace_id, catalog: {streams: [{name, url, json_schema, batch_support, batch_size, request_method, supported_sync_modes, source_defined_cursor, source_defined_primary_key?}], request_rate_limit, request_rate_limit_unit, request_rate_concurrency, schema_mode: schema | schemaless, source_defined_cursor}, catalog_hash}}}.',
  },
  {
    operationId: "querySource",
    method: "post",
    path: "/api/v1/connectors/{id}/query_source",
    tag: "Connectors",
    summary: "Preview a query on a source",
    permission: ["connector", "read"],
    body: querySourceSchema,
    response: "{data: [rows]}.",
  },
  {
    operationId: "checkConnector",
    method: "post",
    path: "/api/v1/connectors/{id}/check",
    tag: "Connectors",
    summary: "Check a saved connector's connection",
    permission: ["connector", "read"],
    body: checkConnectorSchema,
    bodyOptional: true,
    response:
      "{result: success | failure, details, type, connection_status: {status, message}}, as check_connection answers. With configuration in the body (unsaved settings, masked secrets keep the stored ones) it needs connector.update.",
  },
  {
    operationId: "createCatalog",
    method: "post",
    path: "/api/v1/catalogs",
    tag: "Catalogs",
    summary: "Create a connector's catalog",
    permission: ["connector", "create"],
    body: createCatalogSchema,
    response: "The catalog object: {id, connector_id, workspace_id, catalog, created_at, updated_at}.",
  },
  {
    operationId: "updateCatalog",
    method: "put",
    path: "/api/v1/catalogs/{id}",
    tag: "Catalogs",
    summary: "Replace a connector's catalog",
    permission: ["connector", "update"],
    body: updateCatalogSchema,
    response:
      '{data: {id, type: "catalogs", attributes: {connector_id, workspace_id, catalog, catalog_hash}}}.',
  },

  // Models
  {
    operationId: "listModels",
    method: "get",
    path: "/api/v1/models",
    tag: "Models",
    summary: "List models",
    permission: ["model", "read"],
    query: listModelsQuerySchema,
    response: LIST,
  },
  {
    operationId: "createModel",
    method: "post",
    path: "/api/v1/models",
    tag: "Models",
    summary: "Create a model",
    permission: ["model", "create"],
    body: createModelSchema,
    status: 201,
    response: "{data: model}.",
  },
  {
    operationId: "getModel",
    method: "get",
    path: "/api/v1/models/{id}",
    tag: "Models",
    summary: "Show a model",
    permission: ["model", "read"],
    response: "{data: model}.",
  },
  {
    operationId: "updateModel",
    method: "put",
    path: "/api/v1/models/{id}",
    tag: "Models",
    summary: "Update a model",
    permission: ["model", "update"],
    body: updateModelSchema,
    response: "{data: model}.",
  },
  {
    operationId: "deleteModel",
    method: "delete",
    path: "/api/v1/models/{id}",
    tag: "Models",
    summary: "Delete a model",
    permission: ["model", "delete"],
    status: 204,
    response: "No content.",
  },

  // Syncs
  {
    operationId: "listSyncs",
    method: "get",
    path: "/api/v1/syncs",
    tag: "Syncs",
    summary: "List syncs",
    permission: ["sync", "read"],
    query: listSyncsQuerySchema,
    response: LIST,
  },
  {
    operationId: "createSync",
    method: "post",
    path: "/api/v1/syncs",
    tag: "Syncs",
    summary: "Create a sync",
    permission: ["sync", "create"],
    body: createSyncSchema,
    response:
      "The sync resource at the top level ({id, type, attributes}, as interface.md has it), with the same resource again under `data` (where the reference server puts it).",
  },
  {
    operationId: "getSyncConfigurations",
    method: "get",
    path: "/api/v1/syncs/configurations",
    tag: "Syncs",
    summary: "Mapping types a sync configuration may use",
    permission: ["sync", "read"],
    response: "{data: {configurations: {catalog_mapping_types}}}.",
  },
  {
    operationId: "getSync",
    method: "get",
    path: "/api/v1/syncs/{id}",
    tag: "Syncs",
    summary: "Show a sync",
    permission: ["sync", "read"],
    response:
      "The sync resource at the top level ({id, type, attributes}, as interface.md has it), with the same resource again under `data` (where the reference server puts it).",
  },
  {
    operationId: "updateSync",
    method: "put",
    path: "/api/v1/syncs/{id}",
    tag: "Syncs",
    summary: "Update a sync",
    permission: ["sync", "update"],
    body: updateSyncSchema,
    response: "{success, message, data: sync}.",
  },
  {
    operationId: "deleteSync",
    method: "delete",
    path: "/api/v1/syncs/{id}",
    tag: "Syncs",
    summary: "Delete a sync (soft delete)",
    permission: ["sync", "delete"],
    status: 204,
    response: "No content.",
  },
  {
    operationId: "enableSync",
    method: "patch",
    path: "/api/v1/syncs/{id}/enable",
    tag: "Syncs",
    summary: "Enable or disable a sync",
    permission: ["sync", "update"],
    body: enableSyncSchema,
    response: "{data: sync}.",
  },
  {
    operationId: "scheduleSync",
    method: "post",
    path: "/api/v1/schedule_syncs",
    tag: "Syncs",
    summary: "Run a sync now",
    permission: ["sync", "create"],
    body: scheduleSyncSchema,
    response: "{message}. 424 when the sync is disabled or already running.",
  },
  {
    operationId: "cancelSync",
    method: "delete",
    path: "/api/v1/schedule_syncs/{sync_id}",
    tag: "Syncs",
    summary: "Cancel a sync's active run",
    permission: ["sync", "create"],
    response: "{message}. 424 when there is no active run.",
  },
  {
    operationId: "testSync",
    method: "post",
    path: "/enterprise/api/v1/syncs/{sync_id}/test",
    tag: "Syncs",
    summary: "Send one random row through the sync",
    permission: ["sync", "create"],
    response: '{message: "Sync test triggered successful"}. 424 when the sync is disabled.',
  },

  // Runs and records
  {
    operationId: "listSyncRuns",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs",
    tag: "Sync runs",
    summary: "Runs of a sync, newest first",
    permission: ["sync_run", "read"],
    query: listSyncRunsQuerySchema,
    response: LIST,
  },
  {
    operationId: "getSyncRun",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{id}",
    tag: "Sync runs",
    summary: "Show a sync run",
    permission: ["sync_run", "read"],
    response:
      "{data: sync_run}. status `paused` with `waiting_until` (date-time): the run waits for its destination's rate limit or Retry-After, holding no worker, and resumes then.",
  },
  {
    operationId: "listSyncRecords",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records",
    tag: "Sync runs",
    summary: "Records a run sent, oldest first",
    permission: ["sync_record", "read"],
    query: listSyncRecordsQuerySchema,
    response: `${LIST} Every record carries logs {request, response, level} (strings; level info or error): what was sent and what the destination answered, never a secret. 404 {message, status} when the sync or run does not exist.`,
  },

  // Service
  {
    operationId: "getHealth",
    method: "get",
    path: "/api/health",
    tag: "Service",
    summary: "Liveness and database reachability",
    permission: "public",
    response: '{status: "ok", database: "up"}.',
  },
  {
    operationId: "getReadiness",
    method: "get",
    path: "/api/ready",
    tag: "Service",
    summary: "Readiness: database and job queue usable",
    permission: "public",
    response: "{status: ready | not_ready, …}; 503 when not ready.",
  },
  {
    operationId: "getMetrics",
    method: "get",
    path: "/api/metrics",
    tag: "Service",
    summary: "Prometheus metrics",
    permission: "public",
    response: "Prometheus text exposition format.",
  },
  {
    operationId: "getSetup",
    method: "get",
    path: "/api/v1/setup",
    tag: "Service",
    summary: "Whether the first admin still has to be created",
    permission: "public",
    response: "{data: {needs_setup}}.",
  },
  {
    operationId: "createSetup",
    method: "post",
    path: "/api/v1/setup",
    tag: "Service",
    summary: "Create the first admin (only on an empty server)",
    permission: "public",
    body: setupSchema,
    status: 201,
    response: "{data: user}. 409 once a user exists.",
  },
  {
    operationId: "getOpenApiDocument",
    method: "get",
    path: "/api/v1/openapi.json",
    tag: "Service",
    summary: "This document",
    permission: "public",
    response: "OpenAPI 3.1 JSON.",
  },
  ...UNKNOWN_PATHS,
];

export const ERROR_CODES: Record<number, string> = {
  400: "bad_request: malformed JSON or an invalid path/query parameter (errors[].source.parameter names it).",
  401: "unauthorized: missing, invalid, expired or revoked token.",
  403: "forbidden: your role may not do this.",
  404: "not_found: unknown, or in a workspace you cannot see.",
  409: "conflict: the current state does not allow it.",
  413: "payload_too_large: the body is larger than 1 MB.",
  415: "unsupported_media_type: send the body as JSON.",
  422: "validation_failed: the body breaks a rule; each errors[] item points at one field (source.pointer).",
  424: "failed_dependency: the resource is not in a state that allows it (e.g. the sync is disabled).",
  429: "rate_limited: too many attempts; see Retry-After.",
};

/** The permission as a sentence, for descriptions and the reference page. */
export function permissionText(op: Pick<Operation, "permission" | "inPathWorkspace">): string {
  if (op.permission === "public") return "Public: no token needed.";
  if (op.permission === "member") return "Any member of the workspace.";
  if (op.permission === "user") return "Any signed-in user, whatever the Workspace-Id header.";
  const [resource, action] = op.permission;
  return `Requires ${resource}.${action}${op.inPathWorkspace ? " in the workspace of the path" : ""}.`;
}

const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

function errorStatuses(op: Operation): number[] {
  if (op.catchAll) return [404];
  const out: number[] = [];
  if (op.query || op.body || placeholders(op.path).length) out.push(400);
  if (op.permission !== "public") out.push(401);
  if (Array.isArray(op.permission) || op.operationId === "changePassword") out.push(403);
  if (placeholders(op.path).length) out.push(404);
  if (op.body) out.push(413, 415, 422);
  // Operations whose response text names a 424 (sync runs) get the error body documented for it.
  if (/424/.test(op.response)) out.push(424);
  if (["login", "changePassword"].includes(op.operationId) || op.tag === "Accounts") out.push(429);
  if (op.operationId === "signup") out.push(403);
  return out;
}

function build() {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A session token from POST /api/v1/login or an API token. Workspace-Id header selects the workspace.",
  });
  // `.meta({id})` makes it one components.schemas entry that every error response refers to.
  const errorItem = z
    .object({
      status: z.string().describe('The HTTP status as a string, e.g. "422".'),
      title: z.string().describe("The error code, the same as the body's status, e.g. validation_failed."),
      detail: z.string().describe("A sentence about this problem; for a field it begins with the field's dotted path."),
      source: z
        .union([
          z.object({ pointer: z.string().describe("JSON pointer into the request body, e.g. /sync/schedule_type.") }),
          z.object({ parameter: z.string().describe("The query or path parameter, e.g. page.") }),
          z.object({ header: z.string().describe("The request header, e.g. Workspace-Id.") }),
        ])
        .optional()
        .describe("Where the problem is; only for a problem with one field, parameter or header."),
    })
    .describe("One problem, JSON:API style (what the reference console reads).")
    .meta({ id: "ErrorItem" });
  const error = z
    .object({
      message: z.string().describe("A sentence a person can act on."),
      status: z.string().describe("The error code, e.g. not_found."),
      errors: z
        .array(errorItem)
        .min(1)
        .describe("At least one item: one per field problem, else one repeating the message."),
    })
    .describe("The one error body of every endpoint.")
    .meta({ id: "Error" });
  const workspaceHeader = z.object({
    "workspace-id": z
      .string()
      .regex(/^\d+$/)
      .optional()
      .describe("The workspace to act in; absent or 0: your default (first) workspace."),
  });

  for (const op of OPERATIONS) {
    const names = placeholders(op.path);
    const params = names.length
      ? z.object(
          Object.fromEntries(
            names.map((n) => [
              n,
              op.stringParams?.includes(n)
                ? z.string().describe(n)
                : z
                    .number()
                    .int()
                    .positive()
                    .describe(`${n.replace(/_/g, " ")} (integer)`),
            ]),
          ),
        )
      : undefined;
    const status = op.status ?? 200;
    registry.registerPath({
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      tags: [op.tag],
      summary: op.summary,
      description: `${permissionText(op)} ${op.response}`,
      security: op.permission === "public" ? [] : [{ [bearer.name]: [] }],
      request: {
        ...(params ? { params } : {}),
        ...(op.query ? { query: op.query as z.ZodObject } : {}),
        ...(op.permission !== "public" ? { headers: workspaceHeader } : {}),
        ...(op.body
          ? { body: { required: !op.bodyOptional, content: { "application/json": { schema: op.body } } } }
          : {}),
      },
      responses: {
        ...(op.catchAll ? {} : { [status]: { description: op.response } }),
        ...Object.fromEntries(
          errorStatuses(op).map((code) => [
            code,
            { description: op.catchAll ? op.response : ERROR_CODES[code], content: { "application/json": { schema: error } } },
          ]),
        ),
      },
      ...({
        "x-permission": Array.isArray(op.permission) ? op.permission.join(".") : op.permission,
        ...(op.catchAll ? { "x-not-an-endpoint": true } : {}),
      } as object),
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Datasync API",
      version: "1.0.0",
      description:
        "Reverse ETL: connectors, models, syncs and their runs. Bearer JWT on every endpoint but login; errors are {message, status, errors: [{status, title, detail, source?}]}; lists are paginated with page/per_page (or page[number]/page[size]), 25 by default, at most 100.",
    },
    servers: [{ url: "/" }],
    tags: TAGS,
  });
}

let cached: ReturnType<typeof build> | undefined;

/** The document, built once per process. */
export function openApiDocument(): ReturnType<typeof build> {
  cached ??= build();
  return cached;
}
