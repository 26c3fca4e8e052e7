// Liquid templates as an attacker writes them (issue 12 items 3 and 4), over real HTTP: no template
// reads a file, and a template that loops, doubles or runs a hostile regex fails with a clear error
// (at creation, in the check's answer, or as that row's failure) while the server keeps answering.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

const NO_FILES = "templates cannot include files";
const SIZE_LIMIT = /size limit of one render/;
const TIME_LIMIT = /time limit of one render/;
const PACKAGE_NAME = (JSON.parse(readFileSync("package.json", "utf8")) as { name: string }).name;
const HOSTILE_EMAIL = `${"a".repeat(30)}!`;

let ws: DataWorkspace;
const src = unique("e2e_tpl_src");
const dst = unique("e2e_tpl_dst");
let sourceId: number;
let destinationId: number;
let modelId: number;

// A model endpoint that records every body it receives: nothing read from a file may reach it.
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} VALUES (1, $1)`, [HOSTILE_EMAIL]);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text)`);
  ws = await dataWorkspace("templates");
  const connector = (type: string) => ({
    connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  sourceId = Number((await post("/api/v1/connectors", connector("source"))).data.id);
  destinationId = Number((await post("/api/v1/connectors", connector("destination"))).data.id);
  const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const model = { model: { name: unique("m"), query: `SELECT id, email FROM ${src}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId } };
  modelId = Number((await post("/api/v1/models", model)).data.id);

  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push(body);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ label: "ok" }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/predict`;
});
test.afterAll(async () => {
  await ws?.dispose();
  await new Promise((resolve) => receiver?.close(resolve));
  await sql(`DROP TABLE IF EXISTS ${src}`);
  await sql(`DROP TABLE IF EXISTS ${dst}`);
});

function syncBody(emailTemplate: string) {
  return {
    sync: {
      name: unique("sync"),
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "full_refresh",
      stream_name: dst,
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: emailTemplate, to: "email", mapping_type: "template" },
      ],
    },
  };
}

async function checkModel(requestFormat: string) {
  const res = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    name: "HttpModel",
    connection_spec: { url: receiverUrl, method: "POST", request_format: requestFormat },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as { result: string; details: string };
}

/** Runs the sync's test run while polling /api/health, and returns the run's one record. */
async function testRunRecord(syncId: string) {
  const res = await ws.admin.post(`/enterprise/api/v1/syncs/${syncId}/test`);
  expect(res.status(), await res.text()).toBe(200);
  let health = 0;
  let records: { attributes: Record<string, unknown> }[] = [];
  await expect
    .poll(
      async () => {
        // The worker shares this process: health has to keep answering while the run renders.
        if ((await ws.viewer.get("/api/health")).ok()) health++;
        const runs = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs?sync_run_type=test`)).json()).data;
        const run = runs[0];
        if (!run || !["success", "failed", "canceled"].includes(String(run.attributes.status))) return "running";
        records = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${run.id}/sync_records`)).json()).data;
        return "done";
      },
      { timeout: 45_000, intervals: [250, 500, 1000] },
    )
    .toBe("done");
  expect(health).toBeGreaterThan(0);
  expect(records).toHaveLength(1);
  return records[0].attributes;
}

test("a mapping template that includes a file is refused when the sync is created (422)", async () => {
  for (const template of ["{% include 'package.json' %}", "{% render '.data/secrets.json' %}", "{% layout 'package.json' %}x"]) {
    const res = await ws.admin.post("/api/v1/syncs", syncBody(template));
    const text = await res.text();
    expect(res.status(), text).toBe(422);
    expect(text).toContain(NO_FILES);
    expect(text).not.toContain(`"name": "${PACKAGE_NAME}"`);
  }
});

test("an HttpModel request body that includes a file fails the check and reaches no receiver", async () => {
  received.length = 0;
  for (const include of ["{% include 'package.json' %}", "{% render 'package.json' %}", "{% include '.data/secrets.json' %}"]) {
    const check = await checkModel(JSON.stringify({ text: include }));
    expect(check.result).toBe("failure");
    expect(check.details).toContain(NO_FILES);
  }
  expect(received.filter((body) => body.includes(PACKAGE_NAME))).toEqual([]);
});

test("HttpModel checks with a huge loop, nested loops or string doubling fail with a limit while health answers", async () => {
  const attacks: [string, RegExp][] = [
    ["{% for i in (1..30000000) %}{% endfor %}", SIZE_LIMIT],
    // 100,000,000 empty steps over one small array: only the time limit can stop it, on any machine.
    ["{% assign a = (1..10000) %}{% for i in a %}{% for j in a %}{% endfor %}{% endfor %}", TIME_LIMIT],
    ["{% assign s = 'x' %}" + "{% assign s = s | append: s %}".repeat(24) + "{{ s }}", SIZE_LIMIT],
  ];
  for (const [template, limit] of attacks) {
    const [check, health] = await Promise.all([checkModel(JSON.stringify({ text: template })), ws.viewer.get("/api/health")]);
    expect(health.status()).toBe(200);
    expect(check.result).toBe("failure");
    expect(check.details).toMatch(limit);
  }
});

test("a sync test run with (a+)+$ on 30 a's finishes and delivers the row", async () => {
  const created = await post("/api/v1/syncs", syncBody("{{ email | regex_replace: '(a+)+$', 'x' }}"), 200);
  const record = await testRunRecord(String(created.id));
  expect(record).toMatchObject({ status: "success" });
  expect(record.record).toMatchObject({ email: HOSTILE_EMAIL });
});

test("a sync test run whose template loops fails that record with the limit as its reason", async () => {
  const created = await post("/api/v1/syncs", syncBody("{% for i in (1..30000000) %}{% endfor %}{{ email }}"), 200);
  const record = await testRunRecord(String(created.id));
  expect(record).toMatchObject({ status: "failed" });
  expect(String(record.error)).toMatch(/^Mapping to "email": .*size limit of one render/);
});
