// The sweep spec of each endpoint of the table (e2e/support/endpoints.ts): which real resource each
// path placeholder names, a valid body to mutate, the query parameters it takes, and whether a valid
// call changes data. sweep.ts joins these with the endpoint table; sweep-fixture.ts creates the
// resources they name.
import { pgConfiguration, unique } from "./data";

/** Workspaces the sweep may create carry this prefix, so its check ignores other test files' workspaces. */
export const SWEEP_WORKSPACE_PREFIX = "sweep_ws";

/** Ids of one resource of each kind in one workspace. */
export interface Ids {
  workspace: number;
  source: number;
  destination: number;
  model: number;
  sync: number;
  run: number;
  /** A sequence run started from the sync. */
  sequence: number;
  catalog: number;
  role: number;
  token: number;
  member: number;
  webhook: number;
  /** A delivery (a ping) of `webhook`. */
  delivery: number;
  alertChannel: number;
  alertRule: number;
  /** A connector definition name (not an id). */
  definition: string;
}
export type IdName = keyof Ids;

export interface SweepSpec {
  /** The resource each path placeholder names, in order. */
  ids?: IdName[];
  /** A valid body (the sweep mutates it); absent when the route reads none. */
  body?: (ids: Ids) => Record<string, unknown>;
  /** Query parameters with a fixed set of values, and a valid value of each. */
  enumQuery?: Record<string, string>;
  /** Of those, the ones matched in any case (`type=SOURCE` is `source`). */
  anyCaseQuery?: string[];
  /** Query parameters that take an id. */
  idQuery?: string[];
  /** Query parameters the endpoint needs. */
  query?: Record<string, string>;
  paginated?: boolean;
  /** A valid call changes data: sweeps send it only input that must be refused. */
  mutates: boolean;
  /** Body fields (dotted) holding ids of workspace resources. */
  bodyIds?: Record<string, IdName>;
  /** Not swept (no input to speak of, or not ours). */
  skip?: string;
}

/** The PostgreSQL connection of the sweep's sources and destinations (the local test database). */
export const pgSource = () => ({ connector_name: "Postgresql", configuration: pgConfiguration() });

/** Each endpoint's sweep spec, by `METHOD path` (endpointKey in sweep.ts). */
export const SPECS: Record<string, SweepSpec> = {
  "GET /api/health": { mutates: false, skip: "no input" },
  "GET /api/ready": { mutates: false, skip: "no input" },
  "GET /api/metrics": { mutates: false, skip: "no input" },
  "GET /api/v1/openapi.json": { mutates: false, skip: "no input" },
  "GET /api/auth/{}": { mutates: false, skip: "next-auth internals" },
  "POST /api/auth/{}": { mutates: false, skip: "next-auth internals" },
  "GET /api/v1/setup": { mutates: false },
  "POST /api/v1/setup": {
    mutates: true,
    body: () => ({ email: "first@example.com", name: "First", password: "first-password" }),
  },
  "POST /api/v1/login": { mutates: false, body: () => ({ email: "nobody@example.com", password: "x" }) },
  "DELETE /api/v1/logout": { mutates: true, skip: "revokes the caller's session; takes no input" },
  // Account endpoints (the reference's): bodies refused before any mail, token or throttle step.
  "POST /api/v1/signup": {
    mutates: true,
    skip: "switched off on the e2e server (403 whatever is sent); its rules are tested by multiwoven-account-flows.spec.ts on a second server with it on",
  },
  "POST /api/v1/forgot_password": { mutates: true, body: () => ({ email: "sweep-nobody@example.com" }) },
  // A token that is not one: every body is refused, the valid one with 422 at the token check.
  "POST /api/v1/reset_password": {
    mutates: true,
    body: () => ({
      reset_password_token: "sweep-not-a-token",
      password: "sweep-long-passphrase-9",
      password_confirmation: "sweep-long-passphrase-9",
    }),
  },
  "POST /api/v1/accept_invitation": {
    mutates: true,
    body: () => ({
      invitation_token: "sweep-not-a-token",
      password: "sweep-long-passphrase-9",
      password_confirmation: "sweep-long-passphrase-9",
    }),
  },
  "GET /api/v1/verify_user": { mutates: true, query: { confirmation_token: "sweep-not-a-token" } },
  "POST /api/v1/resend_verification": { mutates: true, body: () => ({ email: "sweep-nobody@example.com" }) },

  "GET /api/v1/users/me": { mutates: false },
  // A common new password: refused before the current one is checked, so the sweep (as the seeded
  // admin) neither changes a password nor spends the admin's sign-in attempts.
  "PUT /api/v1/users/me/password": {
    mutates: true,
    body: () => ({ current_password: "not-the-current-one", password: "password123" }),
  },
  "GET /api/v1/api_tokens": { mutates: false, paginated: true },
  "POST /api/v1/api_tokens": { mutates: true, body: () => ({ api_token: { name: unique("t") } }) },
  "DELETE /api/v1/api_tokens/{}": { mutates: true, ids: ["token"] },
  "GET /api/v1/workspaces": { mutates: false, paginated: true },
  "POST /api/v1/workspaces": {
    mutates: true,
    body: () => ({ workspace: { name: unique(SWEEP_WORKSPACE_PREFIX) } }),
  },
  "GET /api/v1/workspaces/{}": { mutates: false, ids: ["workspace"] },
  "PUT /api/v1/workspaces/{}": {
    mutates: true,
    ids: ["workspace"],
    body: () => ({ workspace: { name: unique(SWEEP_WORKSPACE_PREFIX) } }),
  },
  "DELETE /api/v1/workspaces/{}": { mutates: true, ids: ["workspace"] },
  "GET /api/v1/workspaces/{}/members": { mutates: false, ids: ["workspace"], paginated: true },
  "POST /api/v1/workspaces/{}/members": {
    mutates: true,
    ids: ["workspace"],
    body: (ids) => ({
      member: {
        email: `${unique("m")}@example.com`,
        name: "M",
        role_id: ids.role,
      },
    }),
    bodyIds: { "member.role_id": "role" },
  },
  "GET /api/v1/workspaces/{}/members/{}": { mutates: false, ids: ["workspace", "member"] },
  "PUT /api/v1/workspaces/{}/members/{}": {
    mutates: true,
    ids: ["workspace", "member"],
    body: (ids) => ({ member: { role_id: ids.role } }),
    bodyIds: { "member.role_id": "role" },
  },
  "DELETE /api/v1/workspaces/{}/members/{}": { mutates: true, ids: ["workspace", "member"] },
  "GET /enterprise/api/v1/roles": { mutates: false },
  "POST /enterprise/api/v1/roles": {
    mutates: true,
    body: () => ({
      role: { role_name: unique("r"), role_desc: "d", policies: { permissions: { sync: { read: true } } } },
    }),
  },
  "GET /enterprise/api/v1/roles/{}": { mutates: false, ids: ["role"] },
  "PUT /enterprise/api/v1/roles/{}": {
    mutates: true,
    ids: ["role"],
    body: () => ({ role: { role_desc: "changed" } }),
  },
  "DELETE /enterprise/api/v1/roles/{}": { mutates: true, ids: ["role"] },
  "GET /api/v1/audit_logs": { mutates: false, paginated: true, idQuery: ["user_id"] },
  "GET /api/v1/reports": {
    mutates: false,
    query: { type: "workspace_activity" },
    enumQuery: { metric: "all", time_period: "one_day" },
    idQuery: ["connector_ids"],
  },
  "GET /api/v1/connector_definitions": {
    mutates: false,
    enumQuery: { type: "source", category: "data" },
    anyCaseQuery: ["type", "category"],
  },
  "GET /api/v1/connector_definitions/{}": { mutates: false, ids: ["definition"] },
  "POST /api/v1/connector_definitions/check_connection": {
    mutates: false,
    body: () => ({ name: "Postgresql", type: "source", connection_spec: pgConfiguration() }),
  },
  "GET /api/v1/connectors": {
    mutates: false,
    paginated: true,
    enumQuery: { type: "source", category: "data" },
    anyCaseQuery: ["type", "category"],
  },
  "POST /api/v1/connectors": {
    mutates: true,
    body: () => ({ connector: { name: unique("sweep"), connector_type: "source", ...pgSource() } }),
  },
  "GET /api/v1/connectors/{}": { mutates: false, ids: ["source"] },
  "PUT /api/v1/connectors/{}": {
    mutates: true,
    ids: ["source"],
    body: () => ({ connector: { name: unique("renamed") } }),
  },
  "DELETE /api/v1/connectors/{}": { mutates: true, ids: ["source"] },
  "GET /api/v1/connectors/{}/dependents": { mutates: false, ids: ["source"] },
  "GET /api/v1/connectors/{}/discover": {
    mutates: false,
    ids: ["destination"],
    enumQuery: { refresh: "false" },
  },
  "POST /api/v1/connectors/{}/query_source": {
    mutates: false,
    ids: ["source"],
    body: () => ({ query: "SELECT 1 AS one", limit: 5 }),
  },
  // No body spec: an empty body or {} is a valid call (try the saved settings); connectors-check.spec.ts covers bad bodies.
  "POST /api/v1/connectors/{}/check": { mutates: false, ids: ["source"] },
  "POST /api/v1/catalogs": {
    mutates: true,
    body: (ids) => ({ connector_id: ids.destination, catalog: { streams: [{ name: "contacts" }] } }),
    bodyIds: { connector_id: "destination" },
  },
  "PUT /api/v1/catalogs/{}": {
    mutates: true,
    ids: ["catalog"],
    body: (ids) => ({ connector_id: ids.destination, catalog: { streams: [{ name: "contacts" }] } }),
  },
  "GET /api/v1/models": {
    mutates: false,
    paginated: true,
    idQuery: ["connector_id"],
    enumQuery: { query_type: "raw_sql" },
  },
  "POST /api/v1/models": {
    mutates: true,
    body: (ids) => ({
      model: {
        name: unique("m"),
        query: "SELECT 1 AS id",
        query_type: "raw_sql",
        primary_key: "id",
        connector_id: ids.source,
      },
    }),
    bodyIds: { "model.connector_id": "source" },
  },
  "GET /api/v1/models/{}": { mutates: false, ids: ["model"] },
  "PUT /api/v1/models/{}": {
    mutates: true,
    ids: ["model"],
    body: () => ({ model: { description: "changed" } }),
  },
  "DELETE /api/v1/models/{}": { mutates: true, ids: ["model"] },
  "GET /api/v1/models/{}/dependents": { mutates: false, ids: ["model"] },
  "GET /api/v1/syncs": {
    mutates: false,
    paginated: true,
    enumQuery: { status: "pending" },
    idQuery: ["model_id", "source_id", "destination_id"],
  },
  "POST /api/v1/syncs": {
    mutates: true,
    body: (ids) => ({
      sync: {
        name: unique("s"),
        source_id: ids.source,
        destination_id: ids.destination,
        model_id: ids.model,
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: "contacts",
        configuration: [{ from: "id", to: "id", mapping_type: "standard" }],
      },
    }),
    bodyIds: { "sync.source_id": "source", "sync.destination_id": "destination", "sync.model_id": "model" },
  },
  "GET /api/v1/syncs/configurations": { mutates: false },
  "GET /api/v1/syncs/{}": { mutates: false, ids: ["sync"] },
  // The fixture's sync is scheduled: its real id answers 409 (not live), bad ids 400/404.
  "GET /api/v1/syncs/{}/live": { mutates: false, ids: ["sync"] },
  "PUT /api/v1/syncs/{}": {
    mutates: true,
    ids: ["sync"],
    body: () => ({ sync: { description: "changed" } }),
  },
  "DELETE /api/v1/syncs/{}": { mutates: true, ids: ["sync"] },
  "PATCH /api/v1/syncs/{}/enable": { mutates: true, ids: ["sync"], body: () => ({ enable: true }) },
  "POST /api/v1/schedule_syncs": {
    mutates: true,
    body: (ids) => ({ schedule_sync: { sync_id: ids.sync } }),
    bodyIds: { "schedule_sync.sync_id": "sync" },
  },
  "DELETE /api/v1/schedule_syncs/{}": { mutates: true, ids: ["sync"] },
  "POST /enterprise/api/v1/syncs/{}/test": { mutates: true, ids: ["sync"] },
  // No body spec: an empty body or {} is a valid plan request; plan-and-guard.spec.ts covers its options.
  "POST /api/v1/syncs/{}/plan": { mutates: false, ids: ["sync"] },
  // The fixture's run is not waiting for approval: real ids answer 409, bad ones 400/404. No body
  // spec: the body is optional ({"planned_at"}, approval-binding.spec.ts covers it).
  "POST /api/v1/syncs/{}/sync_runs/{}/approve": { mutates: true, ids: ["sync", "run"] },
  "GET /api/v1/syncs/{}/sync_runs": {
    mutates: false,
    ids: ["sync"],
    paginated: true,
    enumQuery: { status: "success", sync_run_type: "general" },
  },
  "GET /api/v1/syncs/{}/sync_runs/{}": { mutates: false, ids: ["sync", "run"] },
  "POST /api/v1/syncs/{}/sync_runs/{}/cancel": { mutates: true, ids: ["sync", "run"] },
  "GET /api/v1/syncs/{}/sync_runs/{}/plan": { mutates: false, ids: ["sync", "run"] },
  "GET /api/v1/syncs/{}/sync_runs/{}/undelivered": { mutates: false, ids: ["sync", "run"] },
  "GET /api/v1/syncs/{}/sync_runs/{}/sync_records": {
    mutates: false,
    ids: ["sync", "run"],
    paginated: true,
    enumQuery: { status: "success", action: "destination_insert" },
    idQuery: ["after_id"],
  },
  // The fixture's run records nothing: a record id that is a real id of the workspace (the run's)
  // still takes the lookup path; records-debug.spec.ts tries real records across workspaces.
  "GET /api/v1/syncs/{}/sync_runs/{}/sync_records/{}": { mutates: false, ids: ["sync", "run", "run"] },
  "GET /api/v1/syncs/{}/sync_runs/{}/sync_records/export": {
    mutates: false,
    ids: ["sync", "run"],
    enumQuery: { status: "success", action: "destination_insert" },
  },
  "GET /api/v1/alert_channels": { mutates: false, paginated: true },
  "POST /api/v1/alert_channels": {
    mutates: true,
    body: () => ({
      alert_channel: { name: unique("channel"), channel_type: "email", recipients: ["sweep@example.com"] },
    }),
  },
  "GET /api/v1/alert_channels/{}": { mutates: false, ids: ["alertChannel"] },
  "PUT /api/v1/alert_channels/{}": {
    mutates: true,
    ids: ["alertChannel"],
    body: () => ({ alert_channel: { name: unique("channel") } }),
  },
  "DELETE /api/v1/alert_channels/{}": { mutates: true, ids: ["alertChannel"] },
  "POST /api/v1/alert_channels/{}/test": { mutates: true, ids: ["alertChannel"] },
  "GET /api/v1/alert_rules": { mutates: false, paginated: true },
  "POST /api/v1/alert_rules": {
    mutates: true,
    body: (ids) => ({
      alert_rule: {
        name: unique("rule"),
        condition: "run_failed",
        sync_id: ids.sync,
        channel_ids: [ids.alertChannel],
      },
    }),
    bodyIds: { "alert_rule.sync_id": "sync", "alert_rule.channel_ids.0": "alertChannel" },
  },
  "GET /api/v1/alert_rules/{}": { mutates: false, ids: ["alertRule"] },
  "PUT /api/v1/alert_rules/{}": {
    mutates: true,
    ids: ["alertRule"],
    body: () => ({ alert_rule: { enabled: true } }),
  },
  "DELETE /api/v1/alert_rules/{}": { mutates: true, ids: ["alertRule"] },
  // Alert links: a token that is not one, so every body is refused (the valid one with 422 at the token check).
  "POST /api/v1/alert_subscriptions/confirm": { mutates: true, body: () => ({ token: "sweep-not-a-token" }) },
  "POST /api/v1/alert_subscriptions/unsubscribe": { mutates: true, body: () => ({ token: "sweep-not-a-token" }) },
  "GET /api/v1/alert_events": { mutates: false, paginated: true, idQuery: ["alert_rule_id", "sync_id"] },
  "GET /api/v1/webhook_subscriptions": { mutates: false, paginated: true },
  "POST /api/v1/webhook_subscriptions": {
    mutates: true,
    body: (ids) => ({
      webhook_subscription: {
        url: "http://127.0.0.1:9/sweep",
        events: ["sync_run.failed"],
        sync_ids: [ids.sync],
      },
    }),
    bodyIds: { "webhook_subscription.sync_ids.0": "sync" },
  },
  "GET /api/v1/webhook_subscriptions/{}": { mutates: false, ids: ["webhook"] },
  "PUT /api/v1/webhook_subscriptions/{}": {
    mutates: true,
    ids: ["webhook"],
    body: () => ({ webhook_subscription: { enabled: true } }),
  },
  "DELETE /api/v1/webhook_subscriptions/{}": { mutates: true, ids: ["webhook"] },
  "POST /api/v1/webhook_subscriptions/{}/rotate_secret": { mutates: true, ids: ["webhook"] },
  "POST /api/v1/webhook_subscriptions/{}/test": { mutates: true, ids: ["webhook"] },
  "GET /api/v1/webhook_subscriptions/{}/deliveries": { mutates: false, ids: ["webhook"], paginated: true },
  "POST /api/v1/webhook_subscriptions/{}/deliveries/{}/redeliver": {
    mutates: true,
    ids: ["webhook", "delivery"],
  },
  "GET /api/v1/sync_runs/{}": { mutates: false, ids: ["run"] },
  "GET /api/v1/syncs/{}/run_after": { mutates: false, ids: ["sync"] },
  "PUT /api/v1/syncs/{}/run_after": {
    mutates: true,
    ids: ["sync"],
    body: () => ({ run_after: { sync_ids: [] } }),
  },
  "POST /api/v1/syncs/{}/sequence_runs": { mutates: true, ids: ["sync"] },
  "GET /api/v1/sequence_runs/{}": { mutates: false, ids: ["sequence"] },
  // Configuration as code: config-as-code.spec.ts covers documents in depth; an empty one changes nothing.
  "GET /api/v1/config/export": { mutates: false },
  "POST /api/v1/config/plan": { mutates: false, body: () => ({ version: 1 }) },
  "POST /api/v1/config/apply": { mutates: true, body: () => ({ version: 1 }) },
};

