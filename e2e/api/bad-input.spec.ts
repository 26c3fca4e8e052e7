// The bad-input sweep: every endpoint of e2e/support/endpoints.ts gets malformed JSON, wrong types,
// missing fields, huge and negative numbers, unknown enum values, bad page numbers, non-integer and
// out-of-range ids, SQL-looking strings, very long strings, a body over 1 MB and unicode. Every
// answer must be a 4xx (never a 5xx) with the one error body
// {message, status, errors: [{status, title, detail, source?}]}, and a refused request must leave
// nothing behind: the workspace's audit log (written in the same transaction as every change) and
// the counts of every collection stay as they were.
import {
  expect,
  request as playwrightRequest,
  test,
  type APIRequestContext,
  type APIResponse,
} from "@playwright/test";
import { BASE_URL, headers, type Api } from "../support/api";
import {
  BAD_ENUMS,
  BAD_IDS,
  BAD_PAGES,
  BAD_QUERY_IDS,
  DIGIT_STRING,
  fieldPaths,
  getAt,
  OPTIONAL_FIELDS,
  REMOVE,
  SQLISH,
  UNICODE,
  withAt,
  wrongTypes,
} from "../support/bad-values";
import { dataWorkspace, type DataWorkspace } from "../support/data";
import { chunks, fillPath, placeholderCount, SWEEP, UNSPECIFIED, type SweepEndpoint } from "../support/sweep";
import { resourceFixture } from "../support/sweep-fixture";
import { SWEEP_WORKSPACE_PREFIX, type Ids } from "../support/sweep-specs";

test.describe.configure({ mode: "serial", timeout: 120_000 });

let ws: DataWorkspace;
let ids: Ids;
let drop: () => Promise<void>;
let ctx: APIRequestContext;
const SWEEP_ADDRESS = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;

interface Finding {
  what: string;
  status: number;
  body: string;
}
const stats = { requests: 0, fiveXX: 0, accepted: 0, byStatus: {} as Record<number, number> };
const problems: Finding[] = [];

test.beforeAll(async () => {
  ws = await dataWorkspace("sweep");
  ({ ids, drop } = await resourceFixture(ws.admin, ws.workspaceId));
  ctx = await playwrightRequest.newContext({ baseURL: BASE_URL });
});

test.afterAll(async () => {
  console.log(
    `bad-input sweep: ${stats.requests} requests, ${stats.fiveXX} 5xx, ${stats.accepted} accepted hostile-but-valid values; by status ${JSON.stringify(stats.byStatus)}`,
  );
  if (problems.length) console.log(problems.map((p) => `${p.status} ${p.what} :: ${p.body.slice(0, 160)}`).join("\n"));
  await ctx?.dispose();
  await drop?.();
  await ws?.dispose();
});

/** Sends one request with the admin's token; `raw` bodies go as they are. */
async function send(
  api: Api,
  method: string,
  url: string,
  body?: { json?: unknown; raw?: string; contentType?: string },
): Promise<APIResponse> {
  // Sign-in attempts come from an address of their own, so they never count against another spec's.
  const h: Record<string, string> = { ...headers(api.session), "x-forwarded-for": SWEEP_ADDRESS };
  let data: string | undefined;
  if (body?.raw !== undefined) data = body.raw;
  else if (body && "json" in body) data = JSON.stringify(body.json);
  if (data !== undefined) h["content-type"] = body?.contentType ?? "application/json";
  const res = await fetchOnce(url, { method, headers: h, data });
  stats.requests++;
  stats.byStatus[res.status()] = (stats.byStatus[res.status()] ?? 0) + 1;
  if (res.status() >= 500) stats.fiveXX++;
  return res;
}

/**
 * One request. The server answers an oversized body with 413 at once and closes the connection (by
 * design: a client must not have to upload it all first), so a client still writing can see EPIPE or
 * a reset instead of the answer; such a send is tried again, up to three times, to read the answer.
 */
async function fetchOnce(url: string, options: { method: string; headers: Record<string, string>; data?: string }): Promise<APIResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.fetch(url, { ...options, failOnStatusCode: false, maxRedirects: 0 });
    } catch (err) {
      const cutOff = /EPIPE|ECONNRESET/.test(String(err)) && (options.data?.length ?? 0) > 1024 * 1024;
      if (!cutOff || attempt === 3) throw err;
    }
  }
}

/** A 4xx with the error body; anything else is recorded as a problem. */
async function expectRefused(
  res: APIResponse,
  what: string,
  allowed: number[] = [400, 404, 413, 415, 422],
): Promise<boolean> {
  const status = res.status();
  const text = await res.text();
  if (!allowed.includes(status)) {
    problems.push({ what, status, body: text.slice(0, 300) });
    return false;
  }
  let body: { message?: unknown; status?: unknown; errors?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    problems.push({ what: `${what} (error body is not JSON)`, status, body: text.slice(0, 300) });
    return false;
  }
  const shapeOk =
    typeof body.message === "string" &&
    body.message.length > 3 &&
    typeof body.status === "string" &&
    // docs/architecture.md ("Errors"): at least one JSON:API-style item, each naming this status and code.
    Array.isArray(body.errors) &&
    body.errors.length > 0 &&
    body.errors.every(
      (e: { status?: unknown; title?: unknown; detail?: unknown; source?: unknown }) =>
        e.status === String(status) &&
        e.title === body.status &&
        typeof e.detail === "string" &&
        (e.source === undefined || (typeof e.source === "object" && e.source !== null)),
    ) &&
    !/at .+\.(ts|js):\d+|prisma|invocation|node_modules/i.test(body.message);
  if (!shapeOk) problems.push({ what: `${what} (error body shape)`, status, body: text.slice(0, 300) });
  return shapeOk;
}

/** Counts of every collection of the workspace, and its audit log. */
async function sweepWorkspaces(): Promise<number> {
  let count = 0;
  for (let page = 1; page <= 50; page++) {
    const body = await (await ws.admin.get(`/api/v1/workspaces?per_page=100&page=${page}`)).json();
    count += (body.data as { attributes: { name: string } }[]).filter((w) => w.attributes.name.startsWith(SWEEP_WORKSPACE_PREFIX)).length;
    if (!body.links.next) break;
  }
  return count;
}

async function snapshot(): Promise<Record<string, number>> {
  const total = async (p: string) => {
    const res = await ws.admin.get(p);
    expect(res.status(), `${p}: ${await res.text()}`).toBe(200);
    const body = await res.json();
    return Number(body.meta?.total_count ?? body.data.length);
  };
  return {
    connectors: await total("/api/v1/connectors?per_page=1"),
    models: await total("/api/v1/models?per_page=1"),
    syncs: await total("/api/v1/syncs?per_page=1"),
    runs: await total(`/api/v1/syncs/${ids.sync}/sync_runs?per_page=1`),
    records: await total(`/api/v1/syncs/${ids.sync}/sync_runs/${ids.run}/sync_records?per_page=1`),
    api_tokens: await total("/api/v1/api_tokens?per_page=1"),
    members: await total(`/api/v1/workspaces/${ids.workspace}/members?per_page=1`),
    roles: await total("/enterprise/api/v1/roles"),
    // Other test files create workspaces in parallel: count only the ones the sweep's bodies name.
    workspaces: await sweepWorkspaces(),
    audit_logs: await total("/api/v1/audit_logs?per_page=1"),
  };
}

const auditCount = async () =>
  Number((await (await ws.admin.get("/api/v1/audit_logs?per_page=1")).json()).meta.total_count);

const label = (e: SweepEndpoint) => `${e.method} ${e.path}`;

// --- the sweep --------------------------------------------------------------------------------

test("every endpoint of the table has a sweep spec", () => {
  // The endpoint table itself is checked against the route files by permissions-matrix.spec.ts.
  expect(UNSPECIFIED, "endpoints without a spec in e2e/support/sweep-specs.ts").toEqual([]);
  expect(SWEEP.length).toBeGreaterThan(50);
});

test("bad path ids are 400 (or 404), never 5xx", async () => {
  // Several requests per path parameter of every endpoint: minutes on a loaded machine.
  test.setTimeout(300_000);
  for (const e of SWEEP) {
    for (let i = 0; i < placeholderCount(e.path); i++) {
      const name = e.ids![i];
      const values =
        name === "definition" ? ["%00", "x".repeat(3000), "..%2F..%2Fetc%2Fpasswd", "%27--"] : BAD_IDS;
      for (const value of values) {
        const url = fillPath(e, ids, { [i]: value });
        const body = e.body ? { json: e.body(ids) } : undefined;
        await expectRefused(
          await send(ws.admin, e.method, url, body),
          `${label(e)} with {${name}}=${value.slice(0, 30)}`,
        );
      }
    }
  }
  expect(problems, JSON.stringify(problems, null, 2)).toEqual([]);
});

test("bad query parameters (pages, enums, ids) are 400, never 5xx", async () => {
  for (const e of SWEEP.filter((x) => x.method === "GET")) {
    const base = fillPath(e, ids);
    const valid = new URLSearchParams(e.query ?? {}).toString();
    const at = (extra: string) => `${base}?${[valid, extra].filter(Boolean).join("&")}`;
    if (e.paginated) {
      for (const name of ["page", "per_page", "page[number]", "page[size]"]) {
        for (const v of BAD_PAGES)
          await expectRefused(
            await send(ws.admin, "GET", at(`${encodeURIComponent(name)}=${v}`)),
            `${label(e)} ${name}=${v}`,
            [400],
          );
      }
      // Far past the end and an oversized page are fine: an empty page, a clamped size.
      for (const extra of ["page=1000000000", "per_page=100000", "page=999999999999&per_page=100"]) {
        const res = await send(ws.admin, "GET", at(extra));
        expect(res.status(), `${label(e)} ${extra}: ${await res.text()}`).toBe(200);
      }
    }
    for (const [name, good] of Object.entries(e.enumQuery ?? {})) {
      for (const v of BAD_ENUMS) {
        // Filters matched in any case (the reference console sends type=Source): a case variant is fine.
        if (e.anyCaseQuery?.includes(name) && v.toLowerCase() === good) {
          const res = await send(ws.admin, "GET", at(`${name}=${v}`));
          expect(res.status(), `${label(e)} ${name}=${v}: ${await res.text()}`).toBe(200);
          continue;
        }
        await expectRefused(
          await send(ws.admin, "GET", at(`${name}=${v}`)),
          `${label(e)} ${name}=${v.slice(0, 30)}`,
          [400],
        );
      }
    }
    for (const name of e.idQuery ?? []) {
      for (const v of BAD_QUERY_IDS) {
        const res = await send(ws.admin, "GET", at(`${name}=${v}`));
        // A well-formed id that matches nothing may also be an empty 200 list.
        if (res.status() === 200) continue;
        await expectRefused(res, `${label(e)} ${name}=${v}`, [400]);
      }
    }
    if (e.path === "/api/v1/connectors") {
      for (const v of ["%00", "x".repeat(5000)])
        await expectRefused(
          await send(ws.admin, "GET", at(`search=${v}`)),
          `${label(e)} search=${v.slice(0, 10)}`,
          [400],
        );
    }
  }
  expect(problems, JSON.stringify(problems, null, 2)).toEqual([]);
});

// The body sweep runs as one test per group of endpoints: whole, it outlasts any sensible time limit on a
// loaded machine (it grows with the endpoint table).
const BODY_GROUPS = chunks(SWEEP.filter((x) => x.body), 6);
for (const group of BODY_GROUPS) test(`bad bodies are refused with 4xx and leave nothing behind: ${label(group[0])} and ${group.length - 1} more`, async () => {
  test.setTimeout(300_000);
  const before = await snapshot();
  let audits = before.audit_logs;
  for (const e of group) {
    const url = fillPath(e, ids);
    const valid = e.body!(ids);
    const attempt = async (
      what: string,
      body: { json?: unknown; raw?: string; contentType?: string },
      allowed?: number[],
    ) => {
      const res = await send(ws.admin, e.method, url, body);
      // check_connection answers 200 {result, details} for any configuration it was given (by contract).
      if (e.path.endsWith("/check_connection") && res.status() === 200 && what.includes("connection_spec")) {
        const answer = await res.json();
        if (!["success", "failure"].includes(answer.result) || typeof answer.details !== "string") problems.push({ what: `${label(e)} ${what}`, status: 200, body: JSON.stringify(answer) });
        return;
      }
      if (res.status() < 300) {
        problems.push({
          what: `${label(e)} ${what} was accepted`,
          status: res.status(),
          body: (await res.text()).slice(0, 300),
        });
        audits = await auditCount();
        return;
      }
      await expectRefused(res, `${label(e)} ${what}`, allowed);
      if (e.mutates) {
        const now = await auditCount();
        if (now !== audits)
          problems.push({
            what: `${label(e)} ${what}: refused but the audit log grew`,
            status: res.status(),
            body: "",
          });
        audits = now;
      }
    };
    // Malformed and non-object JSON, other media types, nothing at all.
    for (const raw of [
      "{",
      "[1,2",
      "nul",
      '{"a":}',
      "{'single': 1}",
      '"just a string"',
      "123",
      "null",
      "true",
      "[]",
      "{}",
      "",
    ]) {
      await attempt(`raw body ${JSON.stringify(raw)}`, { raw }, [400, 422]);
    }
    await attempt("an XML body", { raw: "<sync/>", contentType: "application/xml" }, [415]);
    await attempt("a form body", { raw: "a=1", contentType: "application/x-www-form-urlencoded" }, [415]);
    // Over the 1 MB limit: 413 before it is parsed.
    await attempt("a 1.2 MB body", { json: { ...valid, padding: "x".repeat(1_200_000) } }, [413]);
    await attempt("1.2 MB of raw bytes", { raw: "[" + "1,".repeat(600_000) + "1]" }, [413]);
    // Field by field: wrong types, out-of-range numbers, very long strings, removal of required fields.
    for (const p of fieldPaths(valid)) {
      const key = p.join(".");
      const current = getAt(valid, p);
      // Connector configurations take ports as a number or a digit string (their JSON Schema says so).
      const inConfiguration = p.includes("configuration") || p.includes("connection_spec");
      for (const wrong of wrongTypes(current).filter((w) => !(inConfiguration && w === DIGIT_STRING))) {
        await attempt(`${key} = ${JSON.stringify(wrong).slice(0, 30)}`, { json: withAt(valid, p, wrong) });
      }
      if (typeof current === "string") {
        for (const bad of [...SQLISH, ...UNICODE]) {
          // A string field of an id-like kind (enum, email, name of a definition) must refuse these; free text may
          // take them, which the round-trip test below covers.
          if (
            !/^(connector_type|connector_name|query_type|schedule_type|sync_mode|mapping_type|auth_type|email|request_method)$/.test(
              String(p[p.length - 1]),
            )
          )
            continue;
          if (
            e.path === "/api/v1/login" ||
            e.path.endsWith("check_connection") ||
            e.path.endsWith("query_source")
          )
            continue;
          await attempt(
            `${key} = ${JSON.stringify(bad).slice(0, 30)}`,
            { json: withAt(valid, p, bad) },
            [400, 404, 409, 422, 424],
          );
        }
      }
      if (!OPTIONAL_FIELDS.has(key) && !(e.method === "PUT" && p.length === 2)) {
        await attempt(`without ${key}`, { json: withAt(valid, p, REMOVE) }, [400, 404, 409, 422]);
      }
    }
  }
  expect(problems, JSON.stringify(problems, null, 2)).toEqual([]);
  expect(await snapshot(), "refused requests changed the workspace").toEqual(before);
});

test("hostile but valid strings are stored as they are (SQL-looking, unicode), NUL is refused", async () => {
  const before = await auditCount();
  const values = [...SQLISH, "Ωmega 名前 🙂 \u202eRTL", "e\u0301\ud83d\ude00", "'; SELECT pg_sleep(5); --"];
  for (const value of values) {
    const res = await send(ws.admin, "PUT", `/api/v1/models/${ids.model}`, {
      json: { model: { description: value } },
    });
    expect(res.status(), await res.text()).toBe(200);
    const shown = (await (await ws.admin.get(`/api/v1/models/${ids.model}`)).json()).data.attributes
      .description;
    expect(shown).toBe(value);
    const search = await send(ws.admin, "GET", `/api/v1/connectors?search=${encodeURIComponent(value)}`);
    expect(search.status()).toBe(200);
    const login = await send(ws.admin, "POST", "/api/v1/login", {
      json: { email: `${encodeURIComponent(value).slice(0, 20)}@example.com`, password: value },
    });
    expect([401, 422]).toContain(login.status());
  }
  expect(await auditCount()).toBe(before + values.length);
  // NUL cannot be stored by PostgreSQL: a clear 422 (or 400 in a query), not a 500.
  for (const [method, url, json] of [
    ["PUT", `/api/v1/models/${ids.model}`, { model: { description: "a\u0000b" } }],
    ["PUT", `/api/v1/connectors/${ids.source}`, { connector: { name: "a\u0000b" } }],
    ["POST", "/api/v1/login", { email: "a@example.com", password: "a\u0000b" }],
  ] as const) {
    await expectRefused(
      await send(ws.admin, method, url, { json }),
      `${method} ${url} with NUL`,
      [400, 401, 422],
    );
  }
  expect(problems, JSON.stringify(problems, null, 2)).toEqual([]);
  expect(stats.fiveXX).toBe(0);
});
