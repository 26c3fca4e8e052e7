// A Salesforce REST API emulator, written from the published reference (developer.salesforce.com:
// OAuth 2.0 client credentials and refresh token flows, sObject describe, sObject Collections upsert and create, error
// responses, API request limits and Sforce-Limit-Info): tokens from /services/oauth2/token
// (400 invalid_client otherwise), 401 INVALID_SESSION_ID for unknown or expired tokens, at most 200
// records per collection (400 EXCEEDED_ID_LIMIT), an unknown field refusing the whole request
// (400 INVALID_FIELD), per-record results in request order (REQUIRED_FIELD_MISSING,
// INVALID_EMAIL_ADDRESS), and a 24-hour allowance of API calls past which 403
// REQUEST_LIMIT_EXCEEDED. Messages the reference does not spell out are ours. Tests only.
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_RECORDS = 200;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export const SALESFORCE_CONTACT_FIELDS = [
  { name: "Id", label: "Contact ID", type: "id", createable: false, updateable: false, externalId: false, nillable: false },
  { name: "LastName", label: "Last Name", type: "string", createable: true, updateable: true, externalId: false, nillable: false },
  { name: "FirstName", label: "First Name", type: "string", createable: true, updateable: true, externalId: false, nillable: true },
  { name: "Email", label: "Email", type: "email", createable: true, updateable: true, externalId: false, nillable: true },
  { name: "External_Id__c", label: "External Id", type: "string", createable: true, updateable: true, externalId: true, nillable: true },
  { name: "Employees__c", label: "Employees", type: "double", createable: true, updateable: true, externalId: false, nillable: true },
  { name: "CreatedDate", label: "Created Date", type: "datetime", createable: false, updateable: false, externalId: false, nillable: false },
];

type Record = { [field: string]: unknown };

export async function startSalesforceEmulator(options: { clientId: string; clientSecret: string; apiAllowance?: number; refreshToken?: string }) {
  const tokens = new Set<string>();
  const contacts = new Map<string, Record>();
  const state = { apiAllowance: options.apiAllowance ?? 15_000, apiUsed: 0, tokensIssued: 0 };
  let nextId = 1;
  const fail = (res: ServerResponse, status: number, errorCode: string, message: string, headers: { [h: string]: string } = {}) => json(res, status, [{ message, errorCode }], headers);

  function token(req: ReceivedRequest, res: ServerResponse) {
    const form = new URLSearchParams(req.body);
    const grant = form.get("grant_type");
    if (grant !== "client_credentials" && grant !== "refresh_token") return json(res, 400, { error: "unsupported_grant_type", error_description: "grant type not supported" });
    // The refresh token flow (a user's authorisation of the connected app) names the same client.
    if (grant === "refresh_token" && (!options.refreshToken || form.get("refresh_token") !== options.refreshToken)) {
      return json(res, 400, { error: "invalid_grant", error_description: "expired access/refresh token" });
    }
    if (form.get("client_id") !== options.clientId || form.get("client_secret") !== options.clientSecret) {
      return json(res, 400, { error: "invalid_client", error_description: "invalid client credentials" });
    }
    const accessToken = `00D!${randomBytes(12).toString("hex")}`;
    tokens.add(accessToken);
    state.tokensIssued++;
    json(res, 200, { access_token: accessToken, instance_url: `http://${req.headers.host}`, id: "emulator", token_type: "Bearer", issued_at: String(Date.now()), signature: "sig" });
  }

  /** Why one record fails, as Salesforce words it; undefined when it is saved. */
  function recordError(record: Record, creating: boolean): { statusCode: string; message: string; fields: string[] } | undefined {
    if (record.Email !== undefined && record.Email !== null && !EMAIL.test(String(record.Email))) {
      return { statusCode: "INVALID_EMAIL_ADDRESS", message: `Email: invalid email address: ${String(record.Email)}`, fields: ["Email"] };
    }
    if (creating && !record.LastName) return { statusCode: "REQUIRED_FIELD_MISSING", message: "Required fields are missing: [LastName]", fields: ["LastName"] };
    return undefined;
  }

  function collection(req: ReceivedRequest, res: ServerResponse, externalField: string | undefined, headers: { [h: string]: string }) {
    const records = (parseBody(req) as { records?: Record[] } | undefined)?.records;
    if (!Array.isArray(records)) return fail(res, 400, "JSON_PARSER_ERROR", "records is required", headers);
    if (records.length > MAX_RECORDS) return fail(res, 400, "EXCEEDED_ID_LIMIT", `record limit reached. cannot submit more than ${MAX_RECORDS} records into this call`, headers);
    for (const record of records) {
      for (const field of Object.keys(record)) {
        if (field !== "attributes" && !SALESFORCE_CONTACT_FIELDS.some((f) => f.name === field)) return fail(res, 400, "INVALID_FIELD", `No such column '${field}' on sobject of type Contact`, headers);
      }
    }
    const results = records.map((raw) => {
      const { attributes, ...record } = raw;
      if ((attributes as { type?: string } | undefined)?.type !== "Contact") return { success: false, errors: [{ statusCode: "INVALID_TYPE", message: "attributes.type must be Contact", fields: [] }] };
      const key = externalField ? String(record[externalField] ?? "") : "";
      const existing = externalField ? [...contacts.values()].find((c) => c[externalField] === record[externalField] && key !== "") : undefined;
      const error = recordError({ ...existing, ...record }, !existing);
      if (error) return { success: false, errors: [error], ...(externalField ? { created: false } : {}) };
      const saved = existing ?? { Id: `003${String(nextId++).padStart(15, "0")}` };
      Object.assign(saved, record);
      contacts.set(String(saved.Id), saved);
      return { id: saved.Id, success: true, errors: [], ...(externalField ? { created: !existing } : {}) };
    });
    json(res, 200, results, headers);
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/services/oauth2/token") return token(req, res);
    const bearer = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (!tokens.has(bearer)) return fail(res, 401, "INVALID_SESSION_ID", "Session expired or invalid");
    state.apiUsed++;
    const headers = { "sforce-limit-info": `api-usage=${state.apiUsed}/${state.apiAllowance}` };
    if (state.apiUsed > state.apiAllowance) return fail(res, 403, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.", headers);
    const match = /^\/services\/data\/v\d+\.0(\/.*)$/.exec(url.pathname);
    const path = match?.[1] ?? "";
    if (req.method === "GET" && path === "/sobjects/Contact/describe") return json(res, 200, { name: "Contact", fields: SALESFORCE_CONTACT_FIELDS }, headers);
    if (req.method === "PATCH" && path.startsWith("/composite/sobjects/Contact/")) {
      const field = path.split("/")[4];
      // Id is accepted too: a record without one is created, one with it updated (the documented way to force a create).
      if (field !== "Id" && !SALESFORCE_CONTACT_FIELDS.some((f) => f.name === field && f.externalId)) return fail(res, 400, "INVALID_FIELD", `Field ${field} is not an External ID or indexed field for Contact`, headers);
      return collection(req, res, field, headers);
    }
    if (req.method === "POST" && path === "/composite/sobjects") return collection(req, res, undefined, headers);
    fail(res, 404, "NOT_FOUND", "The requested resource does not exist", headers);
  }

  const server = await startEmulator(handle);
  return {
    ...server,
    contacts,
    state,
    /** Every issued token stops working, as when sessions time out. */
    expireTokens: () => tokens.clear(),
  };
}
