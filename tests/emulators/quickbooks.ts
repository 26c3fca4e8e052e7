// A QuickBooks Online Accounting API emulator with Intuit's OAuth 2.0 token endpoint, written from
// Intuit's published references: developer.intuit.com "Query operations and syntax" (GET
// /v3/company/{realmId}/query?query=SELECT * FROM Entity [WHERE p op v [AND …]] [ORDERBY p]
// [STARTPOSITION n] [MAXRESULTS m], STARTPOSITION from 1, MAXRESULTS at most 1000, the
// {QueryResponse: {Entity: [...], startPosition, maxResults}, time} answer, `{}` for no match, and
// {Fault: {Error: [{Message, Detail, code}], type}} for errors), "OAuth 2.0" (POST
// /oauth2/v1/tokens/bearer, grant_type=refresh_token, client in a Basic header, a new refresh token
// in each answer, changed about once a day, invalid_grant / invalid_client) and "Rate limits" (500 requests a minute per
// company; 429 ThrottleExceeded, answered here with Retry-After). Data lives in memory. Tests only.
import type { ServerResponse } from "node:http";
// Not ./common: that one brings the engine's Loader, which Playwright specs cannot import.
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";

export type Entity = Record<string, unknown>;

export interface QuickbooksEmulatorOptions {
  clientId: string;
  clientSecret: string;
  realmId: string;
  refreshToken: string;
  /** Requests a minute per company before 429 (Intuit's is 500). */
  perMinute?: number;
  /** Access token lifetime in seconds (Intuit's is 3600). */
  accessTokenSeconds?: number;
}

const now = () => new Date().toISOString();

function fault(res: ServerResponse, status: number, type: string, message: string, detail: string, code: string, headers: Record<string, string> = {}) {
  json(res, status, { Fault: { Error: [{ Message: message, Detail: detail, code }], type }, time: now() }, headers);
}

/** A property of an entity by its dotted path (MetaData.LastUpdatedTime). */
function property(entity: Entity, path: string): unknown {
  return path.split(".").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Entity)[key] : undefined), entity);
}

interface Condition {
  path: string;
  op: string;
  value: string | number | boolean;
}

interface ParsedQuery {
  entity: string;
  where: Condition[];
  orderBy?: { path: string; desc: boolean };
  start: number;
  max: number;
}

/** Reads one value of a WHERE clause: 'quoted' (backslash escapes), a number, true or false. */
function readValue(text: string): { value: string | number | boolean; rest: string } | undefined {
  if (text.startsWith("'")) {
    let i = 1;
    let out = "";
    while (i < text.length && text[i] !== "'") {
      if (text[i] === "\\" && i + 1 < text.length) i++;
      out += text[i++];
    }
    if (text[i] !== "'") return undefined;
    return { value: out, rest: text.slice(i + 1) };
  }
  const m = /^(true|false|-?\d+(?:\.\d+)?)/i.exec(text);
  if (!m) return undefined;
  const raw = m[1];
  return { value: /^(true|false)$/i.test(raw) ? raw.toLowerCase() === "true" : Number(raw), rest: text.slice(raw.length) };
}

export function parseQuery(query: string): ParsedQuery | string {
  const head = /^\s*select\s+\*\s+from\s+([A-Za-z]+)\s*/i.exec(query);
  if (!head) return "QueryParserError: Encountered an unexpected token; expected SELECT * FROM <entity>";
  let rest = query.slice(head[0].length);
  const where: Condition[] = [];
  if (/^where\s/i.test(rest)) {
    rest = rest.replace(/^where\s+/i, "");
    for (;;) {
      const cond = /^([A-Za-z][A-Za-z0-9.]*)\s*(>=|<=|=|<|>|like)\s*/i.exec(rest);
      if (!cond) return `QueryParserError: Encountered "${rest.slice(0, 20)}" in the WHERE clause`;
      const value = readValue(rest.slice(cond[0].length));
      if (!value) return "QueryParserError: a value is missing or not quoted";
      where.push({ path: cond[1], op: cond[2].toLowerCase(), value: value.value });
      rest = value.rest.trimStart();
      if (/^and\s/i.test(rest)) rest = rest.replace(/^and\s+/i, "");
      else break;
    }
  }
  let orderBy: ParsedQuery["orderBy"];
  const order = /^orderby\s+([A-Za-z][A-Za-z0-9.]*)(\s+(asc|desc))?\s*/i.exec(rest);
  if (order) {
    orderBy = { path: order[1], desc: (order[3] ?? "").toLowerCase() === "desc" };
    rest = rest.slice(order[0].length);
  }
  let start = 1;
  let max = 100;
  const startMatch = /^startposition\s+(\d+)\s*/i.exec(rest);
  if (startMatch) {
    start = Number(startMatch[1]);
    rest = rest.slice(startMatch[0].length);
  }
  const maxMatch = /^maxresults\s+(\d+)\s*/i.exec(rest);
  if (maxMatch) {
    max = Number(maxMatch[1]);
    rest = rest.slice(maxMatch[0].length);
  }
  if (rest.trim() !== "") return `QueryParserError: Encountered "${rest.trim().slice(0, 20)}"`;
  return { entity: head[1], where, orderBy, start: Math.max(1, start), max: Math.min(1000, max) };
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = String(a ?? "");
  const y = String(b ?? "");
  return x < y ? -1 : x > y ? 1 : 0;
}

function matches(entity: Entity, c: Condition): boolean {
  const v = property(entity, c.path);
  if (v === undefined) return false;
  if (c.op === "like") {
    const re = new RegExp(`^${String(c.value).split("%").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    return re.test(String(v));
  }
  const d = compare(v, c.value);
  return c.op === "=" ? d === 0 : c.op === "<" ? d < 0 : c.op === ">" ? d > 0 : c.op === "<=" ? d <= 0 : d >= 0;
}

export async function startQuickbooksEmulator(options: QuickbooksEmulatorOptions) {
  const data = new Map<string, Entity[]>();
  const access = new Map<string, number>();
  /** Refresh tokens that still grant: the newest and the one before it (Intuit keeps the old one valid a while). */
  let refreshTokens = [options.refreshToken];
  let window = { start: Date.now(), count: 0 };
  let forcedThrottles = 0;
  let rotateNext = false;
  let nextId = 1;
  const stats = { queries: [] as string[], tokenGrants: 0, throttled: 0 };

  function throttled(): boolean {
    if (forcedThrottles > 0) {
      forcedThrottles--;
      return true;
    }
    if (Date.now() - window.start >= 60_000) window = { start: Date.now(), count: 0 };
    window.count++;
    return window.count > (options.perMinute ?? 500);
  }

  function token(req: ReceivedRequest, res: ServerResponse) {
    const basic = typeof req.headers.authorization === "string" && req.headers.authorization.startsWith("Basic ") ? Buffer.from(req.headers.authorization.slice(6), "base64").toString("utf8") : "";
    if (basic !== `${options.clientId}:${options.clientSecret}`) return json(res, 401, { error: "invalid_client" });
    const form = new URLSearchParams(req.body);
    if (form.get("grant_type") !== "refresh_token") return json(res, 400, { error: "unsupported_grant_type" });
    const presented = form.get("refresh_token") ?? "";
    if (!refreshTokens.includes(presented)) return json(res, 400, { error: "invalid_grant", error_description: "Incorrect or invalid refresh token" });
    stats.tokenGrants++;
    const accessToken = `qb-access-${Math.random().toString(36).slice(2)}`;
    const lifetime = options.accessTokenSeconds ?? 3600;
    access.set(accessToken, Date.now() + lifetime * 1000);
    // Intuit hands back the same refresh token until it rotates it (about daily); the one before stays valid.
    const rotated = rotateNext ? `qb-refresh-${Math.random().toString(36).slice(2)}` : presented;
    if (rotateNext) refreshTokens = [rotated, presented];
    rotateNext = false;
    json(res, 200, { token_type: "bearer", access_token: accessToken, expires_in: lifetime, refresh_token: rotated, x_refresh_token_expires_in: 8_726_400 });
  }

  function query(req: ReceivedRequest, res: ServerResponse, url: URL, realm: string) {
    const bearer = typeof req.headers.authorization === "string" && req.headers.authorization.startsWith("Bearer ") ? req.headers.authorization.slice(7) : "";
    const expires = access.get(bearer);
    if (!expires || expires < Date.now()) return fault(res, 401, "AuthenticationFault", "message=AuthenticationFailed; errorCode=003200; statusCode=401", "Token expired or invalid", "3200");
    if (realm !== options.realmId) return fault(res, 403, "AuthorizationFault", "message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403", "The app is not authorized for this company", "3100");
    if (throttled()) {
      stats.throttled++;
      return fault(res, 429, "ThrottleExceeded", "message=ThrottleExceeded; errorCode=003001; statusCode=429", "The request limit was reached.", "003001", { "retry-after": "1" });
    }
    const text = url.searchParams.get("query") ?? "";
    stats.queries.push(text);
    const parsed = parseQuery(text);
    if (typeof parsed === "string") return fault(res, 400, "ValidationFault", "Error parsing query", parsed, "4000");
    const all = data.get(parsed.entity);
    if (!all) return fault(res, 400, "ValidationFault", "Error parsing query", `QueryValidationError: Invalid context declaration : ${parsed.entity}`, "4001");
    let rows = all.filter((e) => parsed.where.every((c) => matches(e, c)));
    const order = parsed.orderBy;
    rows = order ? [...rows].sort((a, b) => compare(property(a, order.path), property(b, order.path)) * (order.desc ? -1 : 1)) : rows;
    const page = rows.slice(parsed.start - 1, parsed.start - 1 + parsed.max);
    json(res, 200, { QueryResponse: page.length > 0 ? { [parsed.entity]: page, startPosition: parsed.start, maxResults: page.length } : {}, time: now() });
  }

  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/oauth2/v1/tokens/bearer") return token(req, res);
    const m = /^\/v3\/company\/([^/]+)\/query$/.exec(url.pathname);
    if (req.method === "GET" && m) return query(req, res, url, decodeURIComponent(m[1]));
    fault(res, 404, "ValidationFault", "Unsupported operation", `${req.method} ${url.pathname}`, "4004");
  });

  return {
    url: server.url,
    tokenUrl: `${server.url}/oauth2/v1/tokens/bearer`,
    stats,
    requests: server.requests,
    /** Adds entities of `entity` (Id, SyncToken and MetaData filled in when missing); returns them. */
    add(entity: string, rows: Entity[]): Entity[] {
      const list = data.get(entity) ?? [];
      data.set(entity, list);
      const added = rows.map((row) => {
        const stamp = now();
        const e: Entity = { Id: String(nextId++), SyncToken: "0", ...row, MetaData: { CreateTime: stamp, LastUpdatedTime: stamp, ...((row.MetaData as Entity) ?? {}) } };
        list.push(e);
        return e;
      });
      return added;
    },
    /** Changes one entity as an update in QuickBooks would: SyncToken and LastUpdatedTime move on. */
    update(entity: string, id: string, changes: Entity, lastUpdated = now()): void {
      const e = data.get(entity)?.find((r) => r.Id === id);
      if (!e) throw new Error(`no ${entity} ${id}`);
      Object.assign(e, changes, { SyncToken: String(Number(e.SyncToken) + 1), MetaData: { ...(e.MetaData as Entity), LastUpdatedTime: lastUpdated } });
    },
    /** Creates an (empty) entity type, so queries on it answer. */
    define(entity: string): void {
      if (!data.has(entity)) data.set(entity, []);
    },
    /** The next `n` API requests are answered 429. */
    throttleNext(n: number): void {
      forcedThrottles = n;
    },
    /** The next grant hands back a new refresh token (Intuit's daily rotation). */
    rotateRefreshToken(): void {
      rotateNext = true;
    },
    /** Every access token stops working (as if revoked or expired). */
    expireAccessTokens(): void {
      access.clear();
    },
    close: () => server.close(),
  };
}

export type QuickbooksEmulator = Awaited<ReturnType<typeof startQuickbooksEmulator>>;
