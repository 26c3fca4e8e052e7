// Microsoft Dynamics 365 (Dataverse Web API v9.2): each record is upserted by an alternate key with
// PATCH /api/data/v9.2/<entity set>(<key>=<value>[,…]) (no If-Match: created when absent, updated
// when present), or created with POST /api/data/v9.2/<entity set> in insert mode, one record a
// request, so each record's outcome is its own answer (204 with OData-EntityId, or the error
// object). Auth: OAuth 2.0 client credentials of an app registration against Microsoft Entra ID
// (login.microsoftonline.com/<tenant>/oauth2/v2.0/token, scope https://<org>.crm.dynamics.com/.default);
// the kit caches the token and fetches a new one after a 401. Service protection limits answer 429
// with Retry-After (seconds). Reference: learn.microsoft.com (Dataverse Web API: upsert a table row,
// alternate keys, create, WhoAmI, service protection API limits; Microsoft identity platform
// client credentials flow).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse } from "../rest-kit/types";

const API = "/api/data/v9.2";
const LOGIN = "https://login.microsoftonline.com";
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A tenant id (GUID) or one of its domain names: it becomes a path segment of the token URL. */
const TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;

const text = (config: Row, key: string) => (typeof config[key] === "string" ? String(config[key]).trim() : "");

/**
 * The environment's URL from instance_url: an organization name (contoso →
 * https://contoso.crm.dynamics.com, as the reference takes it), a host, or a full URL.
 */
export function environmentUrl(config: Row): string {
  const value = text(config, "instance_url").replace(/\/+$/, "");
  if (value === "") throw new ConnectorError("Enter the organization name (instance_url), e.g. contoso for https://contoso.crm.dynamics.com.");
  const url = /^https?:\/\//i.test(value) ? value : value.includes(".") ? `https://${value}` : `https://${value}.crm.dynamics.com`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConnectorError(`"${value}" is not an organization name or a Dynamics 365 URL.`);
  }
  return parsed.origin;
}

function tokenUrl(config: Row): string {
  const tenant = text(config, "tenant_id");
  if (!TENANT.test(tenant)) throw new ConnectorError("The tenant ID is not a directory (tenant) ID or domain name.");
  const login = (text(config, "login_url") || LOGIN).replace(/\/+$/, "");
  return `${login}/${tenant}/oauth2/v2.0/token`;
}

/** The alternate key's columns (upsert_key: "accountnumber" or "firstname,lastname"), checked as names. */
function keyColumns(config: Row): string[] {
  const columns = text(config, "upsert_key")
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "");
  for (const c of columns) if (!NAME.test(c)) throw new ConnectorError(`"${c}" is not a Dataverse column logical name.`);
  return columns;
}

const entitySet = (ctx: RestContext) => {
  if (!NAME.test(ctx.stream.name)) throw new ConnectorError(`"${ctx.stream.name}" is not a Dataverse entity set name.`);
  return ctx.stream.name;
};

/** One key value as an OData literal: text quoted (a quote doubled), numbers and booleans bare. */
function literal(column: string, value: unknown): string {
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return String(value);
  if (value === null || value === undefined || value === "" || typeof value === "object") {
    throw new ConnectorError(`The record has no value in ${column}, the alternate key Dataverse upserts on.`);
  }
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** What one upsert request needs: the row's key segment and its body. */
interface Upsert {
  key: string;
  body: Row;
}

function upsertItem(record: WriteRecord, ctx: RestContext): Upsert {
  const columns = keyColumns(ctx.config);
  if (columns.length === 0) throw new ConnectorError("Name the table's alternate key (upsert_key) to upsert, or write in insert mode to create rows.");
  return { key: columns.map((c) => `${c}=${encodeURIComponent(literal(c, record.payload[c]))}`).join(","), body: record.payload };
}

/** Each request carries one record: its own answer is its outcome. */
function single(response: RestResponse): RecordResult[] {
  const id = response.headers["odata-entityid"];
  return [{ ok: true, detail: { status: response.status, ...(id ? { "OData-EntityId": id } : {}) } }];
}

const text255: JsonSchema = { type: ["string", "null"] };
const integer: JsonSchema = { type: ["integer", "null"] };
const number: JsonSchema = { type: ["number", "null"] };

/** The tables the reference offers, with the columns it lists (Dataverse logical names). */
const TABLES: { name: string; properties: Record<string, JsonSchema>; required: string[] }[] = [
  {
    name: "accounts",
    required: ["name"],
    properties: {
      name: text255,
      accountnumber: text255,
      telephone1: text255,
      emailaddress1: text255,
      websiteurl: text255,
      address1_line1: text255,
      address1_city: text255,
      address1_stateorprovince: text255,
      address1_postalcode: text255,
      industrycode: integer,
      revenue: number,
      numberofemployees: integer,
    },
  },
  {
    name: "contacts",
    required: ["lastname"],
    properties: {
      firstname: text255,
      lastname: text255,
      emailaddress1: text255,
      mobilephone: text255,
      telephone1: text255,
      address1_line1: text255,
      address1_city: text255,
      address1_stateorprovince: text255,
      address1_postalcode: text255,
      jobtitle: text255,
      "parentcustomerid_account@odata.bind": text255,
    },
  },
  {
    name: "opportunities",
    required: ["name"],
    properties: {
      name: text255,
      "customerid_account@odata.bind": text255,
      estimatedvalue: number,
      description: text255,
      closeprobability: integer,
      estimatedclosedate: { type: ["string", "null"], format: "date" },
      actualclosedate: { type: ["string", "null"], format: "date" },
      opportunityratingcode: integer,
      stageid: text255,
      "ownerid@odata.bind": text255,
    },
  },
];

interface ODataError {
  code?: string;
  message?: string;
}
const odataError = (response: RestResponse) => (response.body as { error?: ODataError } | undefined)?.error;

/** The typed settings: base_url (the test and proxy override) or the environment named by instance_url. */
export function dynamicsSettings(config: Row): Row {
  if (text(config, "base_url") !== "") return config;
  try {
    return { ...config, base_url: environmentUrl(config) };
  } catch {
    // Left to the kit, whose baseUrl answers with the sentence where a failure is reported.
    return config;
  }
}

export const microsoftDynamicsDestination = defineRestDestination({
  definition: {
    name: "MicrosoftDynamics",
    title: "Microsoft Dynamics",
    category: "CRM",
    secretTargetFields: ["instance_url", "login_url"],
    icon: "/icons/microsoft-dynamics.svg",
    documentationUrl: "https://learn.microsoft.com/en-us/power-apps/developer/data-platform/webapi/perform-operations-web-api",
    connectionSpecification: restSpecification(
      "Microsoft Dynamics",
      { required: "Overrides the environment URL (a proxy or a test server); leave empty to use it.", title: "API base URL (advanced)" },
      {
        instance_url: { type: "string", title: "Organization name", description: "The environment's name (contoso for https://contoso.crm.dynamics.com) or its URL.", minLength: 1, order: 0 },
        tenant_id: secretField("Tenant ID", "The Microsoft Entra directory (tenant) ID of the app registration.", 1),
        application_id: { type: "string", title: "Application ID", description: "The app registration's application (client) ID; the app is an application user of the environment.", minLength: 1, order: 2 },
        client_secret: secretField("Client secret", "A client secret of the app registration.", 3),
        upsert_key: {
          type: "string",
          title: "Alternate key",
          description: "The table's alternate key column(s), comma-separated (e.g. accountnumber): rows are upserted by it. Empty: rows can only be created (insert mode).",
          order: 4,
        },
        login_url: { type: "string", title: "Sign-in authority (advanced)", description: `Where the token is asked for. Default ${LOGIN}; change it only for a national cloud or a test server.`, format: "uri", pattern: "^https?://", order: 5 },
      },
      ["instance_url", "tenant_id", "application_id", "client_secret"],
    ),
  },
  settings: dynamicsSettings,
  baseUrl: environmentUrl,
  auth: {
    kind: "oauth_client_credentials",
    tokenPath: "/oauth2/v2.0/token",
    tokenUrl,
    scope: (config) => `${environmentUrl(config)}/.default`,
    clientIdField: "application_id",
    clientSecretField: "client_secret",
    defaultLifetimeSeconds: 3600,
  },
  headers: { "odata-version": "4.0", "odata-maxversion": "4.0" },
  limits: { maxRecords: 1 },
  // Service protection: 6,000 requests per user in a sliding five minutes, 52 at once.
  rate: { limit: 1200, unit: "minute", concurrency: 10 },
  writes: {
    upsert: {
      item: upsertItem,
      request: (items, ctx) => {
        const item = items[0] as Upsert | undefined;
        return { method: "PATCH", path: `${API}/${entitySet(ctx)}(${item?.key ?? ""})`, body: item?.body };
      },
      results: single,
    },
    insert: {
      item: (record) => record.payload,
      request: (items, ctx) => ({ method: "POST", path: `${API}/${entitySet(ctx)}`, body: items[0] }),
      results: single,
    },
  },
  check: {
    request: () => ({ method: "GET", path: `${API}/WhoAmI` }),
    describe: (response) => {
      const me = (response.body ?? {}) as { UserId?: string; OrganizationId?: string };
      return me.UserId ? `Connected to Dataverse as application user ${me.UserId}.` : "Connected to Dataverse.";
    },
  },
  async discover(ctx) {
    const key = keyColumns(ctx.config);
    return TABLES.map((t) => ({
      name: t.name,
      json_schema: { type: "object", additionalProperties: true, required: t.required, properties: t.properties },
      ...(key.length > 0 ? { primary_key: key } : {}),
    }));
  },
  errorText: (response) => {
    const error = odataError(response);
    return error ? `${error.message ?? "error"}${error.code ? ` (${error.code})` : ""}` : undefined;
  },
  rateLimitHeaders: ["odata-entityid", "x-ms-ratelimit-burst-remaining-xrm-requests", "x-ms-ratelimit-time-remaining-xrm-requests"],
});
