// Debugging a run's records (issue 20, points 7, 8, 11): search by primary key, one record's source
// row / mapped payload / request and response (never a secret), the CSV export (filters, formula
// cells defused, permissions), a test run of a picked row, and model SQL errors placed in the
// user's own query. Real runs of the engine: PostgreSQL → PostgreSQL and → a local HTTP receiver.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import mysql from "mysql2/promise";
import { expect, test } from "@playwright/test";
import { RESOURCES } from "../../lib/auth/permissions";
import { Api, expectError, loginAs } from "../support/api";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";
import { acceptInvitation } from "../support/mailbox";

let ws: DataWorkspace;
let other: DataWorkspace;
const src = unique("e2e_rec_src");
const dst = unique("e2e_rec_dst");
let sourceId: number;
let modelId: number;
let pgSync: string;
let pgRun: string;
let receiver: Server;
let receiverUrl: string;
const TOKEN = `tok-${unique("secret")}`;

type Rec = { id: string; attributes: Record<string, unknown> };

async function post(api: Api, path: string, data: unknown, status = 201) {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

async function runAndWait(syncId: string): Promise<string> {
  const started = await post(ws.admin, "/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, 200);
  const runId = String(started.data.id);
  await waitForRun(syncId, runId);
  return runId;
}

async function waitForRun(syncId: string, runId: string): Promise<Record<string, unknown>> {
  let attributes: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        attributes = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).json()).data.attributes;
        return String(attributes.status);
      },
      { timeout: 45_000, intervals: [250, 500, 1000] },
    )
    .toMatch(/^(success|failed)$/);
  return attributes;
}

async function records(syncId: string, runId: string, query = ""): Promise<Rec[]> {
  const res = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records${query}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data;
}

async function createSync(destinationId: number, stream: string, configuration: unknown[]): Promise<string> {
  const body = await post(
    ws.admin,
    "/api/v1/syncs",
    {
      sync: {
        name: unique("sync"),
        source_id: sourceId,
        destination_id: destinationId,
        model_id: modelId,
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: stream,
        configuration,
      },
    },
    200,
  );
  return String(body.id);
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  // Keys a spreadsheet would run as formulas; NULL emails are refused by the destination (NOT NULL).
  await sql(`CREATE TABLE ${src} (code text PRIMARY KEY, email text)`);
  await sql(
    `INSERT INTO ${src} VALUES ('=1+2', 'a@example.com'), ('+SUM(1)', NULL), ('-3', 'c@example.com'), ('@me', NULL), ('k5', 'e@example.com')`,
  );
  await sql(`CREATE TABLE ${dst} (code text PRIMARY KEY, email text NOT NULL)`);
  receiver = createServer((req, res) => {
    // Refuses everything, echoing the credential it got: the record must not show it.
    req.resume();
    req.on("end", () => {
      res.writeHead(422, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "rejected", authorization: req.headers.authorization ?? "" }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  ws = await dataWorkspace("records");
  other = await dataWorkspace("records-other");
  const connector = (type: string, name: string, configuration: unknown) => ({
    connector: { name: unique(type), connector_type: type, connector_name: name, configuration },
  });
  sourceId = Number((await post(ws.admin, "/api/v1/connectors", connector("source", "Postgresql", pgConfiguration()))).data.id);
  const pgDest = Number((await post(ws.admin, "/api/v1/connectors", connector("destination", "Postgresql", pgConfiguration()))).data.id);
  expect((await ws.admin.get(`/api/v1/connectors/${pgDest}/discover?refresh=true`)).status()).toBe(200);
  modelId = Number(
    (
      await post(ws.admin, "/api/v1/models", {
        model: { name: unique("m"), query: `SELECT code, email FROM ${src}`, query_type: "raw_sql", primary_key: "code", connector_id: sourceId },
      })
    ).data.id,
  );
  pgSync = await createSync(pgDest, dst, [
    { from: "code", to: "code", mapping_type: "standard" },
    { from: "email", to: "email", mapping_type: "standard" },
  ]);
  pgRun = await runAndWait(pgSync);
});

test.afterAll(async () => {
  await ws?.dispose();
  await other?.dispose();
  receiver?.close();
  await sql(`DROP TABLE IF EXISTS ${src}`);
  await sql(`DROP TABLE IF EXISTS ${dst}`);
});

test("records are searched by primary key (exact), alone or with the status filter", async () => {
  const all = await records(pgSync, pgRun);
  expect(all).toHaveLength(5);
  const found = await records(pgSync, pgRun, `?primary_key=${encodeURIComponent("+SUM(1)")}`);
  expect(found.map((r) => r.attributes.primary_key)).toEqual(["+SUM(1)"]);
  expect(found[0].attributes.status).toBe("failed");
  expect(await records(pgSync, pgRun, "?primary_key=k5&status=failed")).toHaveLength(0);
  expect(await records(pgSync, pgRun, "?primary_key=no-such-key")).toHaveLength(0);
  const page = await (await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records?primary_key=k5`)).json();
  expect(page.meta?.total_count ?? page.data.length).toBe(1);
  const empty = await expectError(await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records?primary_key=`), 400, "bad_request");
  expect(empty.message).toContain("primary_key");
});

test("a record shows its source row, the mapped payload and the destination's request and response", async () => {
  const [failed] = await records(pgSync, pgRun, `?primary_key=${encodeURIComponent("@me")}`);
  const res = await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/${failed.id}`);
  expect(res.status(), await res.text()).toBe(200);
  const detail = (await res.json()).data;
  expect(detail.attributes).toMatchObject({
    primary_key: "@me",
    status: "failed",
    record: { code: "@me", email: null },
    payload: { code: "@me", email: null },
    payload_source: "sent",
    payload_error: null,
  });
  expect(detail.attributes.logs.request).toContain(dst);
  expect(detail.attributes.logs.response).toMatch(/null/i);
  expect(detail.attributes.logs.level).toBe("error");

  const [ok] = await records(pgSync, pgRun, "?primary_key=k5");
  const okDetail = (await (await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/${ok.id}`)).json()).data;
  expect(okDetail.attributes).toMatchObject({
    status: "success",
    record: { code: "k5", email: "e@example.com" },
    payload: { code: "k5", email: "e@example.com" },
    payload_source: "mapped_now",
  });

  // Not this run's, not this workspace's, not an id: 404, 404, 400.
  await expectError(await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/999999999`), 404, "not_found");
  await expectError(await other.admin.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/${ok.id}`), 404, "not_found");
  await expectError(await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/abc`), 400, "bad_request");
});

test("a rejected HTTP request shows request and response without the destination's credentials", async () => {
  const http = Number(
    (
      await post(ws.admin, "/api/v1/connectors", {
        connector: {
          name: unique("hook"),
          connector_type: "destination",
          connector_name: "Http",
          configuration: { destination_url: receiverUrl, headers: { Authorization: `Bearer ${TOKEN}` } },
        },
      })
    ).data.id,
  );
  expect((await ws.admin.get(`/api/v1/connectors/${http}/discover?refresh=true`)).status()).toBe(200);
  const syncId = await createSync(http, "webhook", [{ from: "code", to: "key", mapping_type: "standard" }]);
  const runId = await runAndWait(syncId);
  const [rec] = await records(syncId, runId, "?primary_key=k5");
  expect(rec.attributes.status).toBe("failed");
  const res = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records/${rec.id}`);
  const text = await res.text();
  expect(res.status(), text).toBe(200);
  const detail = JSON.parse(text).data.attributes;
  expect(detail.logs.request).toContain("/hook");
  expect(detail.logs.response).toContain("422");
  expect(detail.logs.response).toContain("rejected");
  expect(text).not.toContain(TOKEN);
  const list = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records`);
  expect(await list.text()).not.toContain(TOKEN);
  const csv = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records/export`);
  expect(csv.status()).toBe(200);
  expect(await csv.text()).not.toContain(TOKEN);
});

/** RFC 4180 lines of a small CSV (no line breaks inside cells here). */
const csvRows = (text: string) =>
  text
    .split("\r\n")
    .filter((l) => l !== "")
    .map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.filter((c) => c !== "").map((c) => c.replace(/,$/, "").replace(/^"|"$/g, "").replace(/""/g, '"')));

test("the CSV export streams the run's records with the filter applied and formula cells defused", async () => {
  const res = await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/export?status=failed`);
  expect(res.status(), await res.text()).toBe(200);
  expect(res.headers()["content-type"]).toMatch(/^text\/csv/);
  expect(res.headers()["content-disposition"]).toBe(`attachment; filename="sync-${pgSync}-run-${pgRun}-records-failed.csv"`);
  const rows = csvRows(await res.text());
  expect(rows[0]).toEqual(["record_id", "primary_key", "status", "action", "error", "created_at", "source_row"]);
  expect(rows.slice(1).map((r) => r[1]).sort()).toEqual(["'+SUM(1)", "'@me"]);
  expect(rows.slice(1).every((r) => r[2] === "failed")).toBe(true);
  expect(JSON.parse(rows[1][6])).toHaveProperty("email", null);

  const all = csvRows(await (await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/export`)).text());
  expect(all).toHaveLength(6);
  const keys = all.slice(1).map((r) => r[1]);
  expect(keys.sort()).toEqual(["'+SUM(1)", "'-3", "'=1+2", "'@me", "k5"]);
  // No cell of the file starts with a formula character.
  for (const row of all) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@]/);

  const one = csvRows(await (await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/export?primary_key=k5`)).text());
  expect(one.slice(1).map((r) => r[1])).toEqual(["k5"]);
  await expectError(await ws.viewer.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/export?status=bogus`), 400, "bad_request");
});

test("the export and the record detail: 403 for a role that may not read syncs, 404 from another workspace", async ({ request }) => {
  const permissions = Object.fromEntries(
    RESOURCES.map((r) => [r, { create: false, read: !["sync", "sync_run", "sync_record"].includes(r), update: false, delete: false }]),
  );
  const role = await post(ws.admin, "/enterprise/api/v1/roles", { role: { role_name: unique("No syncs"), role_desc: "Everything but syncs", policies: { permissions } } });
  const email = `${unique("nosync")}@example.com`;
  const password = "no-sync-password-1";
  await post(ws.admin, `/api/v1/workspaces/${ws.workspaceId}/members`, { member: { email, name: "No syncs", role_id: Number(role.data.id) } });
  await acceptInvitation(request, email, password);
  const noSyncs = new Api({ token: await loginAs(request, email, password), workspaceId: ws.workspaceId });
  const [rec] = await records(pgSync, pgRun, "?primary_key=k5");
  await expectError(await noSyncs.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/export`), 403, "forbidden");
  await expectError(await noSyncs.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/${rec.id}`), 403, "forbidden");
  await expectError(await noSyncs.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records?primary_key=k5`), 403, "forbidden");
  const elsewhere = await other.admin.get(`/api/v1/syncs/${pgSync}/sync_runs/${pgRun}/sync_records/export`);
  const body = await elsewhere.text();
  expect(elsewhere.status(), body).toBe(404);
  expect(body).not.toContain("k5");
});

test("a test run sends the row picked by primary key; an unknown key fails the run with a sentence", async () => {
  const started = await post(ws.admin, `/enterprise/api/v1/syncs/${pgSync}/test`, { primary_key: "k5" }, 200);
  expect(started.message).toBe(`Test run ${started.data.id} queued: it sends the row with primary key k5 to the destination.`);
  const run = await waitForRun(pgSync, String(started.data.id));
  expect(run).toMatchObject({ status: "success", sync_run_type: "test", successful_rows: 1 });
  const recs = await records(pgSync, String(started.data.id));
  expect(recs.map((r) => r.attributes.primary_key)).toEqual(["k5"]);

  const missing = await post(ws.admin, `/enterprise/api/v1/syncs/${pgSync}/test`, { primary_key: "nope" }, 200);
  const failed = await waitForRun(pgSync, String(missing.data.id));
  expect(failed.status).toBe("failed");
  expect(failed.error).toContain('has code = "nope"; nothing was sent');
  await expectError(await ws.admin.post(`/enterprise/api/v1/syncs/${pgSync}/test`, { primary_key: "" }), 422, "validation_failed");
  // A misspelt member is refused rather than sending a random row.
  await expectError(await ws.admin.post(`/enterprise/api/v1/syncs/${pgSync}/test`, { primarykey: "k5" }), 422, "validation_failed");
  await expectError(await ws.viewer.post(`/enterprise/api/v1/syncs/${pgSync}/test`, { primary_key: "k5" }), 403, "forbidden");
});

test("a model query with a typo reports PostgreSQL's error at the user's own line and column, without internal ids", async () => {
  const res = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: `SELECT code,\n    , email FROM ${src};` });
  const body = await expectError(res, 422, "validation_failed");
  expect(body.message).toContain('syntax error at or near ","');
  expect(body.message).toContain(`at line 2, column 5 of your query, near ", email FROM ${src};"`);
  expect(body.message).not.toMatch(/connector \d|AS q|\$1/);
  const column = await expectError(
    await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: `SELECT code, emial FROM ${src}` }),
    422,
    "validation_failed",
  );
  expect(column.message).toContain('column "emial" does not exist at line 1, column 14 of your query, near "emial FROM');
});

test("a model query with a typo reports MariaDB's error at the user's own line and column", async () => {
  const mariaUrl = process.env.MARIADB_URL;
  test.skip(!mariaUrl, "MARIADB_URL is not set (e.g. mysql://root@127.0.0.1:3306/test)");
  const url = new URL(mariaUrl!);
  const database = url.pathname.replace(/^\//, "") || "test";
  const table = unique("e2e_rec_maria");
  const admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.${table} (id INT PRIMARY KEY, email TEXT)`);
    const maria = await post(ws.admin, "/api/v1/connectors", {
      connector: {
        name: unique("maria"),
        connector_type: "source",
        connector_name: "MariaDB",
        configuration: {
          host: url.hostname,
          port: Number(url.port || 3306),
          username: decodeURIComponent(url.username),
          ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
          database,
        },
      },
    });
    const res = await ws.admin.post(`/api/v1/connectors/${maria.data.id}/query_source`, { query: `SELECT id,\n  , email FROM ${table}` });
    const body = await expectError(res, 422, "validation_failed");
    // MariaDB points at the comma or just after it, depending on its version: line 2 either way.
    expect(body.message).toMatch(new RegExp(`at line 2, column [34] of your query, near ",? ?email FROM ${table}"$`));
    expect(body.message).not.toMatch(/connector \d|AS q|LIMIT/);
  } finally {
    await admin.query(`DROP TABLE IF EXISTS \`${database}\`.${table}`);
    await admin.end();
  }
});
