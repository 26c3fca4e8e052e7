// The Sftp source over real HTTP against a real OpenSSH server (tests/support/sshd.ts): created from
// the reference's own settings (plus our host key pin), checked, discovered, previewed, modeled and
// synced into PostgreSQL; an unchanged re-run sends nothing, a changed row is sent alone. The stored
// password never comes back.
import { expect, test } from "@playwright/test";
import { startSshd, sshdUnavailable, type SshdServer } from "../../tests/support/sshd";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

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

const csv = (rows: [number, string][]) => `id,email\n${rows.map(([id, email]) => `${id},${email}`).join("\n")}\n`;

test.beforeAll(async () => {
  sshd = await startSshd();
  sshd.put("exports/contacts.csv", csv(Array.from({ length: 300 }, (_, i) => [i + 1, `u${i + 1}@example.com`])));
  ws = await dataWorkspace("sftp-source");
});

test.afterAll(async () => {
  await ws?.dispose();
  await sshd?.stop();
});

test("an SFTP CSV file syncs into PostgreSQL; an unchanged re-run sends nothing", async () => {
  const configuration = {
    // The reference's settings, as a Multiwoven user has them…
    host: sshd.host,
    port: sshd.port,
    username: sshd.username,
    password: sshd.password,
    file_path: "exports",
    file_name: "contacts",
    format_type: "csv",
    // …and our optional pin of the server's host key.
    host_key_fingerprint: sshd.hostKeyFingerprint,
  };
  const res = await ws.admin.post("/api/v1/connectors", { connector: { name: unique("sftp"), connector_type: "source", connector_name: "Sftp", configuration } });
  expect(res.status(), await res.text()).toBe(201);
  const body = await res.json();
  expect(body.data.attributes.configuration.password).toBe(MASK);
  expect(JSON.stringify(body)).not.toContain(sshd.password);
  const sourceId = Number(body.data.id);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("exports/contacts.csv");

  const wrong = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    type: "source",
    name: "Sftp",
    connection_spec: { ...configuration, password: "not-the-password" },
  });
  expect(wrong.status()).toBe(200);
  expect(JSON.stringify(await wrong.json())).toContain("wrong password or key");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("contacts.csv");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: 'SELECT id, email FROM "contacts.csv" ORDER BY id' });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("u1@example.com");

  const table = unique("sftp_contacts");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("contacts"), query: 'SELECT id, email FROM "contacts.csv"', query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: table,
      configuration: { id: "id", email: "email" },
    },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 300, successful_rows: 300 });
  expect(await sqlRows(`SELECT count(*)::int AS n, max(email) AS m FROM ${table} WHERE id = 7`)).toEqual([{ n: 1, m: "u7@example.com" }]);
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 300 }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  sshd.put("exports/contacts.csv", csv(Array.from({ length: 300 }, (_, i) => [i + 1, i === 41 ? "changed@example.com" : `u${i + 1}@example.com`])));
  const changed = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(changed).toMatchObject({ status: "success", total_rows: 1, successful_rows: 1 });
  expect(await sqlRows(`SELECT email FROM ${table} WHERE id = 42`)).toEqual([{ email: "changed@example.com" }]);
});
