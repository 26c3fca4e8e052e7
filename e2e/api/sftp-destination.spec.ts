// The Sftp destination over real HTTP against a real OpenSSH server (tests/support/sshd.ts): created
// from the reference's own settings, checked (a test write), discovered, and fed by a sync from a
// PostgreSQL model; the CSV files that arrive hold every row, each record says where it went, no
// temporary file is left, and an unchanged re-run sends nothing.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startSshd, sshdUnavailable, type SshdServer } from "../../tests/support/sshd";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

const why = sshdUnavailable();
test.skip(!!why, why ?? "");

let ws: DataWorkspace;
let sshd: SshdServer;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

/** Every data line of the CSV files in the directory (headers dropped), sorted. */
function arrived(dir: string): { files: string[]; lines: string[] } {
  const files = readdirSync(dir).sort();
  const lines = files.filter((f) => f.endsWith(".csv")).flatMap((f) => readFileSync(path.join(dir, f), "utf8").trim().split("\n").slice(1));
  return { files, lines: lines.sort() };
}

test.beforeAll(async () => {
  sshd = await startSshd();
  sshd.put("imports/.keep", "");
  ws = await dataWorkspace("sftp-destination");
});

test.afterAll(async () => {
  await ws?.dispose();
  await sshd?.stop();
});

test("a PostgreSQL model syncs into CSV files on the SFTP server; an unchanged re-run sends nothing", async () => {
  const table = unique("sftp_people");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, name text, note text)`);
  await sql(`INSERT INTO ${table} SELECT g, 'Person ' || g, CASE WHEN g = 3 THEN 'has, a comma' END FROM generate_series(1, 120) g`);

  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const res = await ws.admin.post("/api/v1/connectors", {
    connector: {
      name: unique("sftp"),
      connector_type: "destination",
      connector_name: "Sftp",
      configuration: {
        host: sshd.host,
        port: sshd.port,
        username: sshd.username,
        password: sshd.password,
        destination_path: "imports",
        file_name: "people",
        format: { format_type: "csv", compression_type: "un_compressed" },
      },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  const body = await res.json();
  expect(body.data.attributes.configuration.password).toBe(MASK);
  const destinationId = Number(body.data.id);

  const check = await ws.admin.post(`/api/v1/connectors/${destinationId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("takes new files");

  const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain('"sftp"');

  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("people"), query: `SELECT id, name, note FROM ${table}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: "sftp",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "name", to: "name", mapping_type: "standard" },
        { from: "note", to: "note", mapping_type: "standard" },
      ],
    },
  });
  const runId = await trigger(ws.admin, syncId);
  const first = await waitForRun(ws.admin, syncId, runId);
  expect(first).toMatchObject({ status: "success", total_rows: 120, successful_rows: 120 });

  const dir = path.join(sshd.root, "imports");
  const { files, lines } = arrived(dir);
  expect(files.filter((f) => f.endsWith(".part") || (f.startsWith(".") && f !== ".keep"))).toEqual([]);
  expect(files.filter((f) => f !== ".keep").every((f) => /^people_[0-9a-f]{16}\.csv$/.test(f))).toBe(true);
  expect(lines).toHaveLength(120);
  expect(lines).toContain('3,Person 3,"has, a comma"');
  expect(lines).toContain("4,Person 4,");

  const records = await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?per_page=5`);
  expect(records.status(), await records.text()).toBe(200);
  const text = JSON.stringify(await records.json());
  expect(text).toMatch(/PUT sftp:\/\/127\.0\.0\.1\/imports\/people_[0-9a-f]{16}\.csv/);
  expect(text).not.toContain(sshd.password);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
  expect(arrived(dir).lines).toHaveLength(120);
});
