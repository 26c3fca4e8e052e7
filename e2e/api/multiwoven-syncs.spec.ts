// Issue 13 (the reference's console and SDKs against our API), syncs: the members and envelopes the
// reference's server sends and its console reads, beside what the API contract fixes. Real runs of the
// engine (PostgreSQL → PostgreSQL, PostgreSQL → a local HTTP receiver, MariaDB when MARIADB_URL is set).
// Over 400 lines: every test shares the tables, connectors and discovered catalog built once in beforeAll.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import mysql from "mysql2/promise";
import { dataWorkspace, ensureTestDatabase, ISO, PG, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
const src = unique("e2e_mw_src");
const dst = unique("e2e_mw_dst");
const bigSrc = unique("e2e_mw_big");
const bigDst = unique("e2e_mw_bigdst");
/** The PostgreSQL connectors' password (the local server trusts; it is still a secret to keep). */
const PG_PASSWORD = PG.password || "unused-password";
const HEADER_SECRET = `Bearer e2e-header-${unique("tok")}`;
const HMAC_SECRET = `e2e-hmac-${unique("key")}`;
let sourceId: number;
let destinationId: number;
let modelId: number;
let receiver: Server;
let receiverUrl: string;

type Json = Record<string, unknown>;
type Resource = { id: string; type: string; attributes: Json };

async function post(path: string, data: unknown, status = 201): Promise<Json> {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

const pgConnector = (type: string) => ({
  connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
});

async function model(query: string, connectorId = sourceId): Promise<number> {
  const body = { model: { name: unique("m"), query, query_type: "raw_sql", primary_key: "id", connector_id: connectorId } };
  return Number(((await post("/api/v1/models", body)).data as Resource).id);
}

async function discover(connectorId: number): Promise<void> {
  const res = await ws.admin.get(`/api/v1/connectors/${connectorId}/discover?refresh=true`);
  expect(res.status(), await res.text()).toBe(200);
}

function syncBody(overrides: Json = {}, columns = ["id", "email"]): Json {
  return {
    sync: {
      name: unique("sync"),
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "full_refresh",
      stream_name: dst,
      configuration: columns.map((c) => ({ from: c, to: c, mapping_type: "standard" })),
      ...overrides,
    },
  };
}

async function createSync(overrides: Json = {}, columns?: string[]): Promise<Resource & { data: Resource }> {
  const res = await ws.admin.post("/api/v1/syncs", syncBody(overrides, columns));
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

/** Runs the sync now, waits for the run to end, and returns the run and all its records. */
async function runAndRecords(syncId: string): Promise<{ run: Json; records: Resource[] }> {
  const triggered = await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } });
  expect(triggered.status(), await triggered.text()).toBe(200);
  const runId = (await triggered.json()).data.id as string;
  let run: Json = {};
  await expect
    .poll(
      async () => {
        run = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).json()).data.attributes;
        return String(run.status);
      },
      { timeout: 60_000, intervals: [250, 500, 1000] },
    )
    .toMatch(/^(success|failed|canceled)$/);
  const res = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?per_page=100`);
  expect(res.status(), await res.text()).toBe(200);
  return { run, records: (await res.json()).data };
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  // Every fourth row has no email: the destination's NOT NULL (and the receiver) reject it.
  await sql(`INSERT INTO ${src} SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE 'u' || g || '@example.com' END FROM generate_series(1, 12) g`);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text NOT NULL)`);
  await sql(`CREATE TABLE ${bigSrc} (id bigint PRIMARY KEY, phone_number bigint, amount numeric)`);
  await sql(`INSERT INTO ${bigSrc} VALUES (1, 5550000001, 12.50), (9007199254740993, 9223372036854775807, NULL)`);
  await sql(`CREATE TABLE ${bigDst} (id bigint PRIMARY KEY, phone_number bigint, amount numeric)`);
  ws = await dataWorkspace("mw-syncs");
  sourceId = Number(((await post("/api/v1/connectors", pgConnector("source"))).data as Resource).id);
  destinationId = Number(((await post("/api/v1/connectors", pgConnector("destination"))).data as Resource).id);
  await discover(destinationId);
  modelId = await model(`SELECT id, email FROM ${src}`);

  // A receiver that refuses records without an email (422), echoing the Authorization header it got:
  // the logs must still not show it.
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const parsed = JSON.parse(body || "null") as Json | Json[];
      const rows = Array.isArray(parsed) ? parsed : [parsed];
      const bad = rows.some((r) => r?.email === null || r?.email === undefined);
      res.writeHead(bad ? 422 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify(bad ? { error: "email is required", auth: req.headers.authorization } : { ok: true }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

test.afterAll(async () => {
  await ws?.dispose();
  await new Promise((resolve) => receiver?.close(resolve));
  for (const table of [src, dst, bigSrc, bigDst]) await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("13.7 the model, source and destination summaries carry the reference's members, on list and show", async () => {
  const created = await createSync();
  const shown = (await (await ws.viewer.get(`/api/v1/syncs/${created.id}`)).json()) as Resource;
  const list = await ws.viewer.get("/api/v1/syncs?per_page=100");
  expect(list.status()).toBe(200);
  const listed = ((await list.json()).data as Resource[]).find((s) => s.id === created.id);
  expect(listed).toBeTruthy();
  for (const sync of [shown, listed!]) {
    const a = sync.attributes;
    // ui/src/views/Activate/Syncs/SyncsList/SyncsListColumns.tsx reads model.connector.icon and model.name;
    // ViewSync.tsx model.connector.{name,icon}; SyncForm/ConfigureSyncs/*.tsx model.connector.{id,connector_name}
    // and model.query (the preview); server/app/serializers/sync_serializer.rb puts the model serializer here.
    expect(a.model).toEqual({
      id: modelId,
      name: expect.any(String),
      description: expect.any(String),
      query: `SELECT id, email FROM ${src}`,
      query_type: "raw_sql",
      configuration: expect.any(Object),
      primary_key: "id",
      connector_id: sourceId,
      connector: {
        id: sourceId,
        name: expect.any(String),
        description: expect.any(String),
        connector_type: "source",
        workspace_id: ws.workspaceId,
        connector_name: "Postgresql",
        icon: expect.stringMatching(/\S/),
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    // sync_serializer.rb: the connector serializer's attributes without configuration;
    // EditSync.tsx reads destination.id, MappedInfo.tsx source/destination.{icon,name}.
    for (const [key, id, type] of [
      ["source", sourceId, "source"],
      ["destination", destinationId, "destination"],
    ] as const) {
      expect(a[key]).toEqual({
        id,
        name: expect.any(String),
        description: expect.any(String),
        connector_type: type,
        workspace_id: ws.workspaceId,
        connector_name: "Postgresql",
        icon: expect.stringMatching(/\S/),
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
    }
    // Still every member we had.
    for (const key of ["name", "source_id", "destination_id", "model_id", "configuration", "stream_name", "status", "last_run", "next_run_at"]) {
      expect(a).toHaveProperty(key);
    }
  }
  // No connector configuration, not even masked, and so no secret, in any summary.
  expect(JSON.stringify(shown)).not.toContain(PG_PASSWORD);
  expect(JSON.stringify(shown)).not.toContain("configuration_encrypted");
  expect(shown.attributes.source).not.toHaveProperty("configuration");
});

test("13.9 show and create carry the bare resource and the same under data; PUT stays {success, message, data}", async () => {
  // the API contract: bare {id, type, attributes}; syncs_controller.rb renders the serializer in the
  // json_api adapter ({data}); FinaliseSync.tsx and EditSync read response.data.attributes.
  const created = await createSync();
  expect(Object.keys(created).sort()).toEqual(["attributes", "data", "id", "type"]);
  expect(created.type).toBe("syncs");
  expect(created.data).toEqual({ id: created.id, type: created.type, attributes: created.attributes });

  const res = await ws.viewer.get(`/api/v1/syncs/${created.id}`);
  expect(res.status()).toBe(200);
  const shown = await res.json();
  expect(Object.keys(shown).sort()).toEqual(["attributes", "data", "id", "type"]);
  expect(shown.data).toEqual({ id: shown.id, type: shown.type, attributes: shown.attributes });
  expect(shown.id).toBe(created.id);

  // useEditSync.tsx reads editSyncResponse.data.attributes: the API contract's envelope already has it.
  const updated = await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { sync_mode: "incremental" } });
  expect(updated.status(), await updated.text()).toBe(200);
  const body = await updated.json();
  expect(Object.keys(body).sort()).toEqual(["data", "message", "success"]);
  expect(body.success).toBe(true);
  expect(typeof body.message).toBe("string");
  expect(body.data).toMatchObject({ id: created.id, type: "syncs", attributes: { sync_mode: "incremental" } });
  expect(body.data.attributes.model.connector.id).toBe(sourceId);

  // ViewSync.tsx reads changeSyncStatus(...).data.
  const disabled = await ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: false });
  expect(disabled.status()).toBe(200);
  expect((await disabled.json()).data).toMatchObject({ id: created.id, attributes: { status: "disabled" } });

  // A viewer cannot create or update through the new envelopes either.
  expect((await ws.viewer.post("/api/v1/syncs", syncBody())).status()).toBe(403);
  expect((await ws.viewer.put(`/api/v1/syncs/${created.id}`, { sync: { sync_mode: "full_refresh" } })).status()).toBe(403);
});

/** Every record has logs {request, response, level} as text, and no secret in them. */
function expectLogs(records: Resource[]): { ok: Json[]; failed: Json[] } {
  const ok: Json[] = [];
  const failed: Json[] = [];
  for (const r of records) {
    const a = r.attributes;
    const logs = a.logs as Json;
    // SyncRecordsColumns.tsx shows the logs button when logs.request is set; ErrorLogsModal.tsx
    // prints request, response and level as text.
    expect(logs, JSON.stringify(a)).toEqual({ request: expect.any(String), response: expect.any(String), level: expect.any(String) });
    expect(String(logs.request).length).toBeGreaterThan(0);
    expect(String(logs.response).length).toBeGreaterThan(0);
    const text = JSON.stringify(logs);
    for (const secret of [PG_PASSWORD, HEADER_SECRET, HEADER_SECRET.slice("Bearer ".length), HMAC_SECRET]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/authorization|x-signature-256/i);
    if (a.status === "success") {
      expect(logs.level).toBe("info");
      ok.push(a);
    } else {
      expect(a.status).toBe("failed");
      expect(logs.level).toBe("error");
      failed.push(a);
    }
  }
  return { ok, failed };
}

test("13.11 every record of a run carries truthful logs, without secrets (PostgreSQL and HTTP destinations)", async () => {
  // PostgreSQL: the NOT NULL column rejects the rows without an email.
  const pgSync = await createSync();
  const pg = await runAndRecords(pgSync.id);
  expect(pg.run).toMatchObject({ successful_rows: 9, failed_rows: 3 });
  expect(pg.records).toHaveLength(12);
  const pgLogs = expectLogs(pg.records);
  expect(pgLogs.failed).toHaveLength(3);
  for (const a of pgLogs.failed) {
    const logs = a.logs as Json;
    const key = (a.record as Json).id;
    // What was sent (the statement kind and the mapped row) and the database's answer.
    expect(logs.request).toBe(`upsert into ${dst}\n{"id":${key},"email":null}`);
    expect(logs.response).toMatch(/null value in column "email"/);
    expect(a.error).toBe(logs.response);
  }
  for (const a of pgLogs.ok) {
    expect((a.logs as Json).request).toBe(`upsert into ${dst} (Postgresql): the row mapped from this record (key ${(a.record as Json).id})`);
    expect((a.logs as Json).response).toBe("Accepted by Postgresql.");
  }

  // HTTP: a receiver answering 422 for rows without an email, in batches (then bisected) and per record.
  const http = Number(
    (
      (
        await post("/api/v1/connectors", {
          connector: {
            name: unique("hook"),
            connector_type: "destination",
            connector_name: "Http",
            configuration: { destination_url: receiverUrl, method: "POST", headers: { Authorization: HEADER_SECRET }, hmac_secret: HMAC_SECRET, batch_size: 4 },
          },
        })
      ).data as Resource
    ).id,
  );
  await discover(http);
  const httpSync = await createSync({ destination_id: http, stream_name: "webhook" });
  const run = await runAndRecords(httpSync.id);
  expect(run.run).toMatchObject({ successful_rows: 9, failed_rows: 3 });
  const httpLogs = expectLogs(run.records);
  // Batches of 4 with a bad row are bisected: records accepted in a smaller batch say so.
  expect(httpLogs.ok.some((a) => / \(record \d+ of \d+ in one request\)\n/.test(String((a.logs as Json).request)))).toBe(true);
  for (const a of [...httpLogs.ok, ...httpLogs.failed]) {
    const logs = a.logs as Json;
    const record = a.record as Json;
    // The method, URL and this record's payload; the receiver's status and body.
    expect(logs.request).toMatch(new RegExp(`^POST ${receiverUrl.replace(/[/.]/g, "\\$&")}( \\(record \\d+ of \\d+ in one request\\))?\\n`));
    // A record bisected out of a failed batch is sent as a one-element array: the body as sent.
    const sent = JSON.parse(String(logs.request).split("\n")[1]);
    expect(Array.isArray(sent) ? sent : [sent]).toEqual([{ id: record.id, email: record.email }]);
    if (a.status === "success") expect(logs.response).toBe('HTTP 200\n{"ok":true}');
    else {
      expect(logs.response).toMatch(/^HTTP 422\n\{"error":"email is required","auth":"\*{13}"\}$/);
      expect(record.email).toBeNull();
    }
  }
});

test("13.12 bigint values are JSON numbers within 2^53 and strings beyond, in records and query_source previews", async () => {
  // the API contract's sync record: record.id and phone_number are integers.
  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, {
    query: `SELECT id, phone_number, amount FROM ${bigSrc} ORDER BY id`,
  });
  expect(preview.status(), await preview.text()).toBe(200);
  expect((await preview.json()).data).toEqual([
    { id: 1, phone_number: 5550000001, amount: "12.50" },
    { id: "9007199254740993", phone_number: "9223372036854775807", amount: null },
  ]);

  const destination = Number(((await post("/api/v1/connectors", pgConnector("destination"))).data as Resource).id);
  await discover(destination);
  const bigModel = await model(`SELECT id, phone_number, amount FROM ${bigSrc}`);
  // Incremental: a re-run sends only what changed (full refresh would re-send every row).
  const sync = await createSync({ destination_id: destination, model_id: bigModel, stream_name: bigDst, sync_mode: "incremental" }, [
    "id",
    "phone_number",
    "amount",
  ]);
  const { run, records } = await runAndRecords(sync.id);
  expect(run).toMatchObject({ status: "success", successful_rows: 2 });
  const byKey = new Map(records.map((r) => [String((r.attributes.record as Json).id), r.attributes.record]));
  expect(byKey.get("1")).toEqual({ id: 1, phone_number: 5550000001, amount: "12.50" });
  expect(byKey.get("9007199254740993")).toEqual({ id: "9007199254740993", phone_number: "9223372036854775807", amount: null });
  // Nothing lost on the way in, and a re-run with no change sends nothing.
  const again = await runAndRecords(sync.id);
  expect(again.records).toHaveLength(0);
  expect(again.run).toMatchObject({ status: "success", total_rows: 0, skipped_rows: 2 });
});

test("13.12 MariaDB: BIGINT values are numbers within 2^53 and strings beyond, in previews and records", async () => {
  const mariaUrl = process.env.MARIADB_URL;
  test.skip(!mariaUrl, "MARIADB_URL is not set (e.g. mysql://root@127.0.0.1:3306/test), so the MariaDB source is not tried");
  const url = new URL(mariaUrl!);
  const database = url.pathname.replace(/^\//, "") || "test";
  const table = unique("e2e_mw_maria");
  const admin = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.${table} (id BIGINT PRIMARY KEY, phone_number BIGINT, amount DECIMAL(10,2))`);
    await admin.query(`INSERT INTO \`${database}\`.${table} VALUES (1, 5550000001, 12.5), (9007199254740993, 9223372036854775807, NULL)`);
    const maria = Number(
      (
        (
          await post("/api/v1/connectors", {
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
          })
        ).data as Resource
      ).id,
    );
    const preview = await ws.admin.post(`/api/v1/connectors/${maria}/query_source`, { query: `SELECT id, phone_number, amount FROM ${table}` });
    expect(preview.status(), await preview.text()).toBe(200);
    const rows = ((await preview.json()).data as Json[]).sort((a, b) => String(a.id).length - String(b.id).length);
    expect(rows).toEqual([
      { id: 1, phone_number: 5550000001, amount: "12.50" },
      { id: "9007199254740993", phone_number: "9223372036854775807", amount: null },
    ]);

    const destination = Number(((await post("/api/v1/connectors", pgConnector("destination"))).data as Resource).id);
    await discover(destination);
    const mariaModel = await model(`SELECT id, phone_number, amount FROM ${table}`, maria);
    const sync = await createSync(
      { source_id: maria, destination_id: destination, model_id: mariaModel, stream_name: bigDst, sync_mode: "incremental" },
      ["id", "phone_number", "amount"],
    );
    await sql(`TRUNCATE ${bigDst}`);
    const { records } = await runAndRecords(sync.id);
    const byKey = new Map(records.map((r) => [String((r.attributes.record as Json).id), r.attributes.record]));
    expect(byKey.get("1")).toEqual({ id: 1, phone_number: 5550000001, amount: "12.50" });
    expect(byKey.get("9007199254740993")).toEqual({ id: "9007199254740993", phone_number: "9223372036854775807", amount: null });
    expect((await runAndRecords(sync.id)).records).toHaveLength(0);
  } finally {
    await admin.query(`DROP TABLE IF EXISTS \`${database}\`.${table}`).catch(() => undefined);
    await admin.end();
  }
});
