// A Microsoft Entra ID token endpoint and Dataverse Web API emulator, written from the published
// references (learn.microsoft.com: Microsoft identity platform OAuth 2.0 client credentials flow
// (POST /{tenant}/oauth2/v2.0/token, form client_id, client_secret, scope <resource>/.default,
// grant_type; the answer token_type, expires_in, access_token; AADSTS errors as error /
// error_description); Dataverse Web API v9.2: WhoAmI, create (POST <entity set>, 204 with
// OData-EntityId), upsert by alternate key (PATCH <entity set>(<key>=<value>), created or updated),
// the OData error object {error: {code, message}}, and service protection limits answered with 429,
// Retry-After in seconds and code 0x80072322). Tables: accounts (alternate key accountnumber) and
// contacts (alternate key emailaddress1). A row is refused when a column is unknown, a whole-number
// column gets something else, or a created row lacks its primary name column. Codes not given in
// the reference and every wording are ours. Tests only.
import { randomBytes, randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { bearerToken, FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

interface Table {
  logicalName: string;
  key: string;
  /** The primary name column a new row needs. */
  required: string;
  columns: Record<string, "text" | "integer" | "number">;
}

const TABLES: Record<string, Table> = {
  accounts: {
    logicalName: "account",
    key: "accountnumber",
    required: "name",
    columns: { name: "text", accountnumber: "text", telephone1: "text", emailaddress1: "text", websiteurl: "text", address1_city: "text", numberofemployees: "integer", revenue: "number" },
  },
  contacts: {
    logicalName: "contact",
    key: "emailaddress1",
    required: "lastname",
    columns: { firstname: "text", lastname: "text", emailaddress1: "text", mobilephone: "text", jobtitle: "text" },
  },
};

type Row = Record<string, unknown>;

export async function startDynamicsEmulator(options: { tenantId: string; clientId: string; clientSecret: string; organization: string }) {
  const tokens = new Set<string>();
  const rows = new Map<string, Map<string, Row>>(Object.keys(TABLES).map((t) => [t, new Map()]));
  /** Service protection: requests per window per caller (6,000 per 5 minutes in Dataverse; tests lower it). */
  const window = new FixedWindow(6000, 300_000);
  const state = { retryAfterSeconds: 1, tokensIssued: 0 };
  let origin = "";
  const odataError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { error: { code, message } }, headers);

  function token(req: ReceivedRequest, res: ServerResponse, tenant: string) {
    const form = new URLSearchParams(req.body);
    const fail = (error: string, description: string) => json(res, 400, { error, error_description: description, error_codes: [Number(description.slice(6, 12))], timestamp: new Date().toISOString() });
    if (tenant !== options.tenantId) return fail("invalid_request", `AADSTS900023: Specified tenant identifier '${tenant}' is neither a valid DNS name, nor a valid external domain.`);
    if (form.get("grant_type") !== "client_credentials") return fail("unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.");
    if (form.get("client_id") !== options.clientId) return fail("unauthorized_client", `AADSTS700016: Application with identifier '${form.get("client_id") ?? ""}' was not found in the directory.`);
    if (form.get("client_secret") !== options.clientSecret) return fail("invalid_client", "AADSTS7000215: Invalid client secret provided.");
    if (form.get("scope") !== `https://${options.organization}.crm.dynamics.com/.default`) return fail("invalid_scope", `AADSTS70011: The provided value for scope ${form.get("scope") ?? ""} is not valid.`);
    const accessToken = `eyJ0eXAi.${randomBytes(16).toString("hex")}`;
    tokens.add(accessToken);
    state.tokensIssued++;
    json(res, 200, { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: accessToken });
  }

  /** Why the row cannot be saved, in the OData error's words; undefined when it can. */
  function rowError(table: Table, row: Row, creating: boolean): string | undefined {
    for (const [column, value] of Object.entries(row)) {
      const type = table.columns[column];
      if (!type) return `Invalid property '${column}' was found in entity 'Microsoft.Dynamics.CRM.${table.logicalName}'.`;
      if (value === null) continue;
      if (type === "integer" && !Number.isInteger(value)) return `Cannot convert the literal '${String(value)}' to the expected type 'Edm.Int32'.`;
      if (type === "number" && typeof value !== "number") return `Cannot convert the literal '${String(value)}' to the expected type 'Edm.Decimal'.`;
      if (type === "text" && typeof value !== "string") return `Cannot convert the literal '${String(value)}' to the expected type 'Edm.String'.`;
    }
    if (creating && (row[table.required] === undefined || row[table.required] === null || row[table.required] === "")) {
      return `Required field '${table.required}' is missing for entity '${table.logicalName}'.`;
    }
    return undefined;
  }

  function save(res: ServerResponse, name: string, table: Table, existing: Row | undefined, row: Row) {
    const error = rowError(table, row, !existing);
    if (error) return odataError(res, 400, "0x80048d19", error);
    const saved = existing ?? { [`${table.logicalName}id`]: randomUUID() };
    Object.assign(saved, row);
    const id = String(saved[`${table.logicalName}id`]);
    rows.get(name)?.set(id, saved);
    res.writeHead(204, { "odata-version": "4.0", "odata-entityid": `${origin}/api/data/v9.2/${name}(${id})` });
    res.end();
  }

  /** accountnumber='A-1' → ["accountnumber", "A-1"]; a number stays text for comparison. */
  function keyOf(segment: string): [string, string] | undefined {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(?:'((?:[^']|'')*)'|([0-9.+-]+))$/.exec(decodeURIComponent(segment));
    return m ? [m[1], (m[2] ?? m[3]).replace(/''/g, "'")] : undefined;
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    origin = `http://${req.headers.host ?? "127.0.0.1"}`;
    const url = new URL(req.url, "http://emulator");
    const login = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (req.method === "POST" && login) return token(req, res, decodeURIComponent(login[1]));
    const bearer = bearerToken(req);
    if (!bearer || !tokens.has(bearer)) return odataError(res, 401, "0x80072560", "The user is not a member of the organization or the token is invalid.", { "www-authenticate": "Bearer" });
    const hit = window.hit(bearer);
    if (!hit.allowed) {
      return odataError(res, 429, "0x80072322", "Number of requests exceeded the limit of 6000 over time window of 300 seconds.", { "retry-after": String(state.retryAfterSeconds) });
    }
    const path = url.pathname.replace(/^\/api\/data\/v9\.2/, "");
    if (path === url.pathname) return odataError(res, 404, "0x8006088a", "Resource not found for the segment.");
    if (req.method === "GET" && path === "/WhoAmI") {
      return json(res, 200, { "@odata.context": `${origin}/api/data/v9.2/$metadata#Microsoft.Dynamics.CRM.WhoAmIResponse`, BusinessUnitId: "b1", UserId: "00000000-0000-0000-0000-00000000a11c", OrganizationId: "00000000-0000-0000-0000-0000000000e9" });
    }
    const m = /^\/([a-z_]+)(?:\((.*)\))?$/.exec(path);
    const table = m ? TABLES[m[1]] : undefined;
    if (!m || !table) return odataError(res, 404, "0x80060888", `Resource not found for the segment '${m?.[1] ?? path}'.`);
    const body = parseBody(req);
    if (typeof body !== "object" || body === null || Array.isArray(body)) return odataError(res, 400, "0x80040216", "The request body is not a JSON object.");
    if (req.method === "POST" && m[2] === undefined) return save(res, m[1], table, undefined, body as Row);
    if (req.method === "PATCH" && m[2] !== undefined) {
      const key = keyOf(m[2]);
      if (!key) return odataError(res, 400, "0x80060888", `Bad Request - Error in query syntax: '${m[2]}'.`);
      if (key[0] !== table.key) return odataError(res, 400, "0x80060891", `A record with the specified key values does not exist in ${table.logicalName} entity: no alternate key on '${key[0]}'.`);
      const existing = [...(rows.get(m[1])?.values() ?? [])].find((r) => String(r[table.key]) === key[1]);
      return save(res, m[1], table, existing, { ...(body as Row), [table.key]: key[1] });
    }
    odataError(res, 405, "0x80060888", "The HTTP method is not allowed on this resource.");
  }

  const server = await startEmulator(handle);
  return {
    ...server,
    rows,
    window,
    state,
    /** Every issued token stops working, as when they expire. */
    expireTokens: () => tokens.clear(),
  };
}
