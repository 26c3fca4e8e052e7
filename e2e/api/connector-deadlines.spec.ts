// One Member must not be able to hang the shared workers (docs/security.md, item 19). Over the API, a
// Member's MQTT sync whose topic is rendered from a value holding a line feed: Mosquitto drops the
// connection on such a topic, and the run used to hang for ever in its worker slot (mqtt.js never
// answered the publishes, and ending the connection waited for them). Now each such record fails
// with a sentence, the others are delivered and the run ends. A topic template whose fixed text can
// never be a topic (a line feed, a wildcard) is refused when saved, on create and on update.
import { expect, test } from "@playwright/test";
import { fieldErrors, memberWithRole, newWorkspace, type Api } from "../support/api";
import { trigger, waitForRun } from "../support/run-scenarios";
import { ensureTestDatabase, pgConfiguration, sql, unique } from "../support/data";

const MQTT_URL = process.env.MQTT_URL ?? "mqtt://127.0.0.1:1883";
const ROWS = 6;
const table = unique("e2e_deadlines");
const prefix = unique("e2e_deadlines");

async function created(api: Api, path: string, data: unknown, status = 201): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

const mqttDestination = (topic_template: string) => ({
  connector: { name: unique("mqtt"), connector_type: "destination", connector_name: "Mqtt", configuration: { url: MQTT_URL, topic_template, timeout: 5 } },
});

test.beforeAll(async () => {
  await ensureTestDatabase();
  // Even ids carry a line feed in the column the topic is rendered from.
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, device text)`);
  await sql(
    `INSERT INTO ${table} SELECT g, CASE WHEN g % 2 = 0 THEN 'dev' || E'\\n' || g ELSE 'dev' || g END FROM generate_series(1, ${ROWS}) g`,
  );
});

test.afterAll(async () => {
  await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("a Member's MQTT sync with a line feed in a rendered topic: those records fail with a sentence, the others arrive, and the run ends", async ({ request }) => {
  const ws = await newWorkspace(request);
  const { api } = await memberWithRole(request, ws, "Member");
  const sourceId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("source"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const modelId = await created(api, "/api/v1/models", {
    model: { name: unique("m"), query: `SELECT id, device FROM ${table}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const destinationId = await created(api, "/api/v1/connectors", mqttDestination(`${prefix}/{{ device }}/state`));
  const discovered = await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const syncId = await created(
    api,
    "/api/v1/syncs",
    {
      sync: {
        name: unique("sync"),
        source_id: sourceId,
        destination_id: destinationId,
        model_id: modelId,
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: "messages",
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "device", to: "device", mapping_type: "standard" },
        ],
      },
    },
    200,
  );

  const runId = await trigger(api, syncId);
  const run = await waitForRun(api, syncId, runId);
  expect(run).toMatchObject({ status: "success", successful_rows: ROWS / 2, failed_rows: ROWS / 2 });

  const res = await api.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?per_page=100`);
  expect(res.status(), await res.text()).toBe(200);
  const records = (await res.json()).data as { attributes: { primary_key: string; status: string; error: string | null } }[];
  const failed = records.filter((r) => r.attributes.status === "failed");
  expect(failed.map((r) => Number(r.attributes.primary_key)).sort((a, b) => a - b)).toEqual([2, 4, 6]);
  for (const r of failed) {
    expect(r.attributes.error).toMatch(/^The topic ".*\/dev\\n\d\/state" cannot be used: topics contain no control characters such as a line feed/);
  }
  expect(records.filter((r) => r.attributes.status === "success")).toHaveLength(ROWS / 2);
});

test("a topic template whose fixed text cannot be a topic is refused when saved: 422 naming topic_template", async ({ request }) => {
  const ws = await newWorkspace(request);
  const { api } = await memberWithRole(request, ws, "Member");
  const refused = async (res: Awaited<ReturnType<Api["post"]>>, reason: RegExp) => {
    expect(res.status(), await res.text()).toBe(422);
    const error = fieldErrors(await res.json()).find((e) => e.path === "connector.configuration.topic_template");
    expect(error?.message).toMatch(reason);
  };
  await refused(await api.post("/api/v1/connectors", mqttDestination(`${prefix}/line\nfeed/{{ id }}`)), /line feed/);
  await refused(await api.post("/api/v1/connectors", mqttDestination(`${prefix}/all/#`)), /wildcards/);
  await refused(await api.post("/api/v1/connectors", mqttDestination(`${prefix}/\u0000/{{ id }}`)), /NUL/);

  // Values rendered into the topic are checked per record, and whitespace the template trims is fine.
  const id = await created(api, "/api/v1/connectors", mqttDestination(`\n  ${prefix}/{{ id }}\n`));
  const update = (topic_template: string) =>
    api.put(`/api/v1/connectors/${id}`, { connector: { configuration: { url: MQTT_URL, topic_template, timeout: 5 } } });
  await refused(await update(`${prefix}/{{ id }}\t/x`), /control characters/);
  await refused(await update(`${prefix}/+/{{ id }}`), /wildcards/);
  const ok = await update(`${prefix}/{{ id }}/ok`);
  expect(ok.status(), await ok.text()).toBe(200);
});
