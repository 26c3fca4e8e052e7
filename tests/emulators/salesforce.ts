// A Salesforce REST API emulator, written from the published reference (developer.salesforce.com:
// OAuth 2.0 client credentials, refresh token and username-password flows, sObject describe and
// describeGlobal, sObject Collections upsert and create, SOQL query with nextRecordsUrl paging and
// the Sforce-Query-Options batchSize header, error responses, API request limits and
// Sforce-Limit-Info): tokens from /services/oauth2/token (400 invalid_client / invalid_grant
// otherwise; the answer names the instance_url the API is at), 401 INVALID_SESSION_ID for unknown or
// expired tokens, at most 200 records per collection (400 EXCEEDED_ID_LIMIT), an unknown field
// refusing the whole request (400 INVALID_FIELD), per-record results in request order
// (REQUIRED_FIELD_MISSING, INVALID_EMAIL_ADDRESS), a 24-hour allowance of API calls past which 403
// REQUEST_LIMIT_EXCEEDED. Saved records get Id, CreatedDate, LastModifiedDate and SystemModstamp.
// SOQL: `SELECT f, … FROM Object [WHERE f op literal [AND …]] [ORDER BY f [ASC|DESC]] [LIMIT n]`
// (400 MALFORMED_QUERY otherwise). Salesforce documents no 429; `control.throttleNext` answers 429
// with Retry-After as a gateway in front of it would, to exercise the throttling path. Messages the
// reference does not spell out are ours. Tests only; no engine imports (e2e specs start it too).
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";

const MAX_RECORDS = 200;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export interface SalesforceField {
  name: string;
  label: string;
  type: string;
  createable: boolean;
  updateable: boolean;
  externalId: boolean;
  nillable: boolean;
}

const field = (name: string, type: string, extra: Partial<SalesforceField> = {}): SalesforceField => ({
  name,
  label: name.replace(/__c$/, "").replace(/([a-z])([A-Z])/g, "$1 $2"),
  type,
  createable: true,
  updateable: true,
  externalId: false,
  nillable: true,
  ...extra,
});
const system = (name: string, type: string) => field(name, type, { createable: false, updateable: false, nillable: false });
const SYSTEM_FIELDS = [system("CreatedDate", "datetime"), system("LastModifiedDate", "datetime"), system("SystemModstamp", "datetime")];

export const SALESFORCE_CONTACT_FIELDS: SalesforceField[] = [
  { name: "Id", label: "Contact ID", type: "id", createable: false, updateable: false, externalId: false, nillable: false },
  { name: "LastName", label: "Last Name", type: "string", createable: true, updateable: true, externalId: false, nillable: false },
  { name: "FirstName", label: "First Name", type: "string", createable: true, updateable: true, externalId: false, nillable: true },
  { name: "Email", label: "Email", type: "email", createable: true, updateable: true, externalId: false, nillable: true },
  { name: "External_Id__c", label: "External Id", type: "string", createable: true, updateable: true, externalId: true, nillable: true },
  { name: "Employees__c", label: "Employees", type: "double", createable: true, updateable: true, externalId: false, nillable: true },
  { name: "CreatedDate", label: "Created Date", type: "datetime", createable: false, updateable: false, externalId: false, nillable: false },
];

/** Consumer Goods Cloud's objects (a subset of their fields, as describe answers them). */
export const CONSUMER_GOODS_OBJECTS: { [object: string]: SalesforceField[] } = {
  Account: [system("Id", "id"), field("Name", "string", { nillable: false }), field("AccountNumber", "string"), field("AnnualRevenue", "currency"), field("NumberOfEmployees", "int"), ...SYSTEM_FIELDS],
  RetailStore: [system("Id", "id"), field("Name", "string", { nillable: false }), field("AccountId", "reference"), field("StoreType", "picklist"), field("Email__c", "email"), ...SYSTEM_FIELDS],
  Visit: [system("Id", "id"), field("PlaceId", "reference", { nillable: false }), field("PlannedVisitStartTime", "datetime"), field("Status", "picklist"), field("VisitPriority", "picklist"), ...SYSTEM_FIELDS],
  RecordType: [system("Id", "id"), field("Name", "string", { nillable: false }), field("SobjectType", "picklist"), field("IsActive", "boolean"), ...SYSTEM_FIELDS],
};

type SObject = { [field: string]: unknown };
interface ObjectStore {
  prefix: string;
  fields: SalesforceField[];
  records: Map<string, SObject>;
}
interface QueryCursor {
  rows: SObject[];
  offset: number;
  size: number;
}

export interface SalesforceEmulatorOptions {
  clientId: string;
  clientSecret: string;
  apiAllowance?: number;
  refreshToken?: string;
  /** The username-password flow's user: the password given is the user's password followed by their security token. */
  user?: { username: string; password: string; securityToken: string };
  /** Objects besides Contact, by API name. */
  objects?: { [object: string]: SalesforceField[] };
  /** The instance_url token answers name (default: this server). */
  instanceUrl?: string;
  /** The most records a query page holds (Salesforce: 2000, and it may answer fewer than asked). */
  queryBatchSize?: number;
}

export async function startSalesforceEmulator(options: SalesforceEmulatorOptions) {
  const tokens = new Set<string>();
  const objects = new Map<string, ObjectStore>([["Contact", { prefix: "003", fields: SALESFORCE_CONTACT_FIELDS, records: new Map() }]]);
  let prefix = 100;
  for (const [name, fields] of Object.entries(options.objects ?? {})) objects.set(name, { prefix: `a${prefix++}`, fields, records: new Map() });
  const contacts = objects.get("Contact")!.records;
  const cursors = new Map<string, QueryCursor>();
  const state = { apiAllowance: options.apiAllowance ?? 15_000, apiUsed: 0, tokensIssued: 0 };
  const control: { throttleNext: number; throttled: number; clock: number; instanceUrl?: string } = { throttleNext: 0, throttled: 0, clock: Date.parse("2024-03-01T09:00:00Z") };
  let nextId = 1;
  const fail = (res: ServerResponse, status: number, errorCode: string, message: string, headers: { [h: string]: string } = {}) => json(res, status, [{ message, errorCode }], headers);
  /** Salesforce's datetime format; each save a second later, so modstamps order the saves. */
  const stamp = () => new Date((control.clock += 1000)).toISOString().replace("Z", "+0000");

  function token(req: ReceivedRequest, res: ServerResponse) {
    const form = new URLSearchParams(req.body);
    const grant = form.get("grant_type");
    if (grant !== "client_credentials" && grant !== "refresh_token" && grant !== "password") return json(res, 400, { error: "unsupported_grant_type", error_description: "grant type not supported" });
    // The refresh token flow (a user's authorisation of the connected app) names the same client.
    if (grant === "refresh_token" && (!options.refreshToken || form.get("refresh_token") !== options.refreshToken)) {
      return json(res, 400, { error: "invalid_grant", error_description: "expired access/refresh token" });
    }
    if (form.get("client_id") !== options.clientId || form.get("client_secret") !== options.clientSecret) {
      return json(res, 400, { error: "invalid_client", error_description: "invalid client credentials" });
    }
    const user = options.user;
    if (grant === "password" && (!user || form.get("username") !== user.username || form.get("password") !== `${user.password}${user.securityToken}`)) {
      return json(res, 400, { error: "invalid_grant", error_description: "authentication failure" });
    }
    const accessToken = `00D!${randomBytes(12).toString("hex")}`;
    tokens.add(accessToken);
    state.tokensIssued++;
    json(res, 200, { access_token: accessToken, instance_url: control.instanceUrl ?? options.instanceUrl ?? `http://${req.headers.host}`, id: "emulator", token_type: "Bearer", issued_at: String(Date.now()), signature: "sig" });
  }

  /** Why one record fails, as Salesforce words it; undefined when it is saved. */
  function recordError(store: ObjectStore, record: SObject, creating: boolean): { statusCode: string; message: string; fields: string[] } | undefined {
    for (const f of store.fields.filter((f) => f.type === "email")) {
      const value = record[f.name];
      if (value !== undefined && value !== null && !EMAIL.test(String(value))) return { statusCode: "INVALID_EMAIL_ADDRESS", message: `${f.name}: invalid email address: ${String(value)}`, fields: [f.name] };
    }
    const missing = store.fields.filter((f) => f.createable && !f.nillable && f.type !== "boolean" && (record[f.name] === undefined || record[f.name] === null || record[f.name] === "")).map((f) => f.name);
    if (creating && missing.length > 0) return { statusCode: "REQUIRED_FIELD_MISSING", message: `Required fields are missing: [${missing.join(", ")}]`, fields: missing };
    return undefined;
  }

  function collection(req: ReceivedRequest, res: ServerResponse, object: string | undefined, externalField: string | undefined, headers: { [h: string]: string }) {
    let parsed: { records?: SObject[] } | undefined;
    try {
      parsed = JSON.parse(req.body || "null") as typeof parsed;
    } catch {
      return fail(res, 400, "JSON_PARSER_ERROR", "The request body is not JSON", headers);
    }
    const records = parsed?.records;
    if (!Array.isArray(records)) return fail(res, 400, "JSON_PARSER_ERROR", "records is required", headers);
    if (records.length > MAX_RECORDS) return fail(res, 400, "EXCEEDED_ID_LIMIT", `record limit reached. cannot submit more than ${MAX_RECORDS} records into this call`, headers);
    for (const record of records) {
      const type = object ?? (record.attributes as { type?: string } | undefined)?.type ?? "";
      const store = objects.get(type);
      if (!store) continue;
      for (const key of Object.keys(record)) {
        if (key !== "attributes" && !store.fields.some((f) => f.name === key)) return fail(res, 400, "INVALID_FIELD", `No such column '${key}' on sobject of type ${type}`, headers);
      }
    }
    const results = records.map((raw) => {
      const { attributes, ...record } = raw;
      const type = (attributes as { type?: string } | undefined)?.type ?? "";
      const store = objects.get(type);
      if (!store || (object && type !== object)) return { success: false, errors: [{ statusCode: "INVALID_TYPE", message: `attributes.type must be ${object ?? "an object"}`, fields: [] }] };
      const key = externalField ? String(record[externalField] ?? "") : "";
      const existing = externalField && key !== "" ? [...store.records.values()].find((c) => c[externalField] === record[externalField]) : undefined;
      if (externalField === "Id" && key !== "" && !existing) return { success: false, errors: [{ statusCode: "NOT_FOUND", message: `Provided external ID field does not exist or is not accessible: ${key}`, fields: [] }], created: false };
      const error = recordError(store, { ...existing, ...record }, !existing);
      if (error) return { success: false, errors: [error], ...(externalField ? { created: false } : {}) };
      const now = stamp();
      const saved = existing ?? { Id: `${store.prefix}${String(nextId++).padStart(15 - store.prefix.length + 3, "0")}`, CreatedDate: now };
      Object.assign(saved, record, { LastModifiedDate: now, SystemModstamp: now });
      store.records.set(String(saved.Id), saved);
      return { id: saved.Id, success: true, errors: [], ...(externalField ? { created: !existing } : {}) };
    });
    json(res, 200, results, headers);
  }

  /** A SOQL literal as a JavaScript value to compare with. */
  function literal(text: string): unknown {
    if (/^'.*'$/s.test(text)) return text.slice(1, -1).replace(/\\(.)/g, "$1");
    if (/^(true|false)$/i.test(text)) return text.toLowerCase() === "true";
    if (/^null$/i.test(text)) return null;
    if (/^\d{4}-\d{2}-\d{2}T/.test(text)) return Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
    if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
    throw new Error(`unexpected token: ${text}`);
  }

  /** A field's value comparable with a literal (datetimes as milliseconds). */
  function comparable(store: ObjectStore, name: string, value: unknown): unknown {
    const type = store.fields.find((f) => f.name === name)?.type;
    return type === "datetime" && typeof value === "string" ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")) : value;
  }

  function soql(q: string): { rows: SObject[] } | { error: string; code: string } {
    const m = /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+(\w+)(?:\s+(ASC|DESC))?)?(?:\s+LIMIT\s+(\d+))?\s*$/is.exec(q);
    if (!m) return { error: "unexpected token: the query is not one this emulator reads", code: "MALFORMED_QUERY" };
    const [, list, object, where, orderBy, direction, limit] = m;
    const store = objects.get(object);
    if (!store) return { error: `sObject type '${object}' is not supported.`, code: "INVALID_TYPE" };
    const names = list.split(",").map((s) => s.trim());
    for (const name of [...names, ...(orderBy ? [orderBy] : [])]) {
      if (!store.fields.some((f) => f.name === name)) return { error: `No such column '${name}' on entity '${object}'.`, code: "INVALID_FIELD" };
    }
    let rows = [...store.records.values()];
    try {
      for (const condition of where ? where.replace(/^\((.*)\)$/s, "$1").split(/\s+AND\s+/i) : []) {
        const c = /^\(?\s*(\w+)\s*(>=|<=|!=|=|>|<)\s*(.+?)\s*\)?$/.exec(condition);
        if (!c || !store.fields.some((f) => f.name === c[1])) return { error: `unexpected token: ${condition}`, code: "MALFORMED_QUERY" };
        const want = literal(c[3]);
        rows = rows.filter((r) => {
          const have = comparable(store, c[1], r[c[1]]) as number | string;
          const w = want as number | string;
          switch (c[2]) {
            case ">=": return have >= w;
            case "<=": return have <= w;
            case ">": return have > w;
            case "<": return have < w;
            case "!=": return have !== w;
            default: return have === w;
          }
        });
      }
    } catch (err) {
      return { error: (err as Error).message, code: "MALFORMED_QUERY" };
    }
    if (orderBy) {
      const sign = direction?.toUpperCase() === "DESC" ? -1 : 1;
      rows.sort((a, b) => {
        const x = comparable(store, orderBy, a[orderBy]) as number | string;
        const y = comparable(store, orderBy, b[orderBy]) as number | string;
        return x === y ? 0 : (x === null || x === undefined ? -1 : y === null || y === undefined ? 1 : x < y ? -1 : 1) * sign;
      });
    }
    if (limit) rows = rows.slice(0, Number(limit));
    return { rows: rows.map((r) => ({ attributes: { type: object, url: `/services/data/v59.0/sobjects/${object}/${String(r.Id)}` }, ...Object.fromEntries(names.map((n) => [n, r[n] ?? null])) })) };
  }

  function page(res: ServerResponse, version: string, id: string, cursor: QueryCursor, headers: { [h: string]: string }) {
    const records = cursor.rows.slice(cursor.offset, cursor.offset + cursor.size);
    cursor.offset += records.length;
    const done = cursor.offset >= cursor.rows.length;
    if (done) cursors.delete(id);
    json(res, 200, { totalSize: cursor.rows.length, done, ...(done ? {} : { nextRecordsUrl: `/services/data/${version}/query/${id}-${cursor.offset}` }), records }, headers);
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (control.throttleNext > 0) {
      control.throttleNext--;
      control.throttled++;
      return json(res, 429, [{ message: "Too many requests", errorCode: "TOO_MANY_REQUESTS" }], { "retry-after": "1" });
    }
    if (req.method === "POST" && url.pathname === "/services/oauth2/token") return token(req, res);
    const bearer = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (!tokens.has(bearer)) return fail(res, 401, "INVALID_SESSION_ID", "Session expired or invalid");
    state.apiUsed++;
    const headers = { "sforce-limit-info": `api-usage=${state.apiUsed}/${state.apiAllowance}` };
    if (state.apiUsed > state.apiAllowance) return fail(res, 403, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.", headers);
    const match = /^\/services\/data\/(v\d+\.0)(\/.*)$/.exec(url.pathname);
    const version = match?.[1] ?? "v59.0";
    const path = match?.[2] ?? "";
    if (req.method === "GET" && path === "/sobjects") return json(res, 200, { encoding: "UTF-8", maxBatchSize: 200, sobjects: [...objects.keys()].map((name) => ({ name, label: name, queryable: true, createable: true, updateable: true })) }, headers);
    const describe = /^\/sobjects\/(\w+)\/describe$/.exec(path);
    if (req.method === "GET" && describe) {
      const store = objects.get(describe[1]);
      if (!store) return fail(res, 404, "NOT_FOUND", "The requested resource does not exist", headers);
      return json(res, 200, { name: describe[1], fields: store.fields }, headers);
    }
    if (req.method === "GET" && path === "/query") {
      const result = soql(url.searchParams.get("q") ?? "");
      if ("error" in result) return fail(res, 400, result.code, result.error, headers);
      const requested = /batchSize=(\d+)/i.exec(String(req.headers["sforce-query-options"] ?? ""));
      // The header is a hint: Salesforce may answer fewer records a page (here: at most queryBatchSize).
      const size = Math.min(options.queryBatchSize ?? 2000, Math.min(2000, Math.max(200, Number(requested?.[1] ?? 2000))));
      const id = `01g${randomBytes(6).toString("hex")}`;
      const cursor = { rows: result.rows, offset: 0, size };
      cursors.set(id, cursor);
      return page(res, version, id, cursor, headers);
    }
    const more = /^\/query\/(01g[0-9a-f]+)-(\d+)$/.exec(path);
    if (req.method === "GET" && more) {
      const cursor = cursors.get(more[1]);
      if (!cursor || cursor.offset !== Number(more[2])) return fail(res, 400, "INVALID_QUERY_LOCATOR", "invalid query locator", headers);
      return page(res, version, more[1], cursor, headers);
    }
    const upsert = /^\/composite\/sobjects\/(\w+)\/(\w+)$/.exec(path);
    if (req.method === "PATCH" && upsert) {
      const [, object, key] = upsert;
      const store = objects.get(object);
      if (!store) return fail(res, 404, "NOT_FOUND", "The requested resource does not exist", headers);
      // Id is accepted too: a record without one is created, one with it updated (the documented way to force a create).
      if (key !== "Id" && !store.fields.some((f) => f.name === key && f.externalId)) return fail(res, 400, "INVALID_FIELD", `Field ${key} is not an External ID or indexed field for ${object}`, headers);
      return collection(req, res, object, key, headers);
    }
    if (req.method === "POST" && path === "/composite/sobjects") return collection(req, res, undefined, undefined, headers);
    fail(res, 404, "NOT_FOUND", "The requested resource does not exist", headers);
  }

  const server = await startHttpServer(handle);
  return {
    ...server,
    contacts,
    /** Records of an object by Id. */
    records: (object: string) => objects.get(object)!.records,
    /** Saves records as the org would (Id and the system dates set). */
    seed(object: string, rows: SObject[]) {
      const store = objects.get(object)!;
      for (const row of rows) {
        const now = stamp();
        const saved = { Id: `${store.prefix}${String(nextId++).padStart(15 - store.prefix.length + 3, "0")}`, CreatedDate: now, ...row, LastModifiedDate: now, SystemModstamp: now };
        store.records.set(String(saved.Id), saved);
      }
    },
    /** Changes a record, moving its modstamp on. */
    touch(object: string, id: string, changes: SObject) {
      const now = stamp();
      Object.assign(objects.get(object)!.records.get(id)!, changes, { LastModifiedDate: now, SystemModstamp: now });
    },
    state,
    control,
    /** Every issued token stops working, as when sessions time out. */
    expireTokens: () => tokens.clear(),
  };
}
