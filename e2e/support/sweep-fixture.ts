// A fixture for the bad-input and tenant-isolation sweeps: one resource of each kind, created through
// the API, whose ids fill the sweep's path placeholders (sweep.ts).
import { expect } from "@playwright/test";
import type { Api } from "./api";
import { ensureTestDatabase, sql, unique } from "./data";
import { pgSource, type Ids } from "./sweep-specs";

async function createdJson(res: Awaited<ReturnType<Api["post"]>>): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect([200, 201], text).toContain(res.status());
  return JSON.parse(text) as Record<string, unknown>;
}

const idOf = (body: Record<string, unknown>): number =>
  Number((body.data as { id: string } | undefined)?.id ?? body.id);

/**
 * One resource of each kind in the workspace `admin` works in: a PostgreSQL source and destination
 * (local test database), the destination's catalog, a model, a sync with one finished run and a
 * finished sequence run, a custom
 * role, an API token and a member. `drop` removes the scratch table.
 */
export async function resourceFixture(
  admin: Api,
  workspaceId: number,
): Promise<{ ids: Ids; drop(): Promise<void> }> {
  await ensureTestDatabase();
  const table = unique("sweep_rows");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${table} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 3) g`);
  const connector = (type: string) => ({
    connector: { name: unique(type), connector_type: type, ...pgSource() },
  });
  const source = idOf(await createdJson(await admin.post("/api/v1/connectors", connector("source"))));
  const destination = idOf(
    await createdJson(await admin.post("/api/v1/connectors", connector("destination"))),
  );
  const catalog = idOf(
    await createdJson(
      await admin.post("/api/v1/catalogs", {
        connector_id: destination,
        catalog: { streams: [{ name: "contacts" }] },
      }),
    ),
  );
  const model = idOf(
    await createdJson(
      await admin.post("/api/v1/models", {
        model: {
          name: unique("m"),
          query: `SELECT id, email FROM ${table}`,
          query_type: "raw_sql",
          primary_key: "id",
          connector_id: source,
        },
      }),
    ),
  );
  const sync = idOf(
    await createdJson(
      await admin.post("/api/v1/syncs", {
        sync: {
          name: unique("s"),
          source_id: source,
          destination_id: destination,
          model_id: model,
          schedule_type: "manual",
          sync_mode: "full_refresh",
          stream_name: "contacts",
        },
      }),
    ),
  );
  const run = idOf(
    await createdJson(await admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: sync } })),
  );
  // The run ends (it fails: no such table "contacts"), so later calls meet a sync at rest.
  await expect
    .poll(
      async () =>
        String(
          (await (await admin.get(`/api/v1/syncs/${sync}/sync_runs/${run}`)).json()).data?.attributes?.status,
        ),
      { timeout: 30_000 },
    )
    .toMatch(/^(success|failed|canceled)$/);
  const sequence = idOf(await createdJson(await admin.post(`/api/v1/syncs/${sync}/sequence_runs`)));
  await expect
    .poll(
      async () =>
        String(
          (await (await admin.get(`/api/v1/sequence_runs/${sequence}`)).json()).data?.attributes?.status,
        ),
      { timeout: 30_000 },
    )
    .not.toBe("running");
  const role = idOf(
    await createdJson(
      await admin.post("/enterprise/api/v1/roles", {
        role: {
          role_name: unique("role"),
          role_desc: "sweep",
          policies: { permissions: { sync: { read: true } } },
        },
      }),
    ),
  );
  const token = idOf(
    await createdJson(await admin.post("/api/v1/api_tokens", { api_token: { name: unique("token") } })),
  );
  const member = idOf(
    await createdJson(
      await admin.post(`/api/v1/workspaces/${workspaceId}/members`, {
        member: {
          email: `${unique("member")}@example.com`,
          name: "Member",
          role_id: role,
        },
      }),
    ),
  );
  const webhook = idOf(
    await createdJson(
      await admin.post("/api/v1/webhook_subscriptions", {
        webhook_subscription: { url: "http://127.0.0.1:9/sweep", events: ["sync_run.failed"] },
      }),
    ),
  );
  const delivery = idOf(await createdJson(await admin.post(`/api/v1/webhook_subscriptions/${webhook}/test`)));
  const alertChannel = idOf(
    await createdJson(
      await admin.post("/api/v1/alert_channels", {
        alert_channel: { name: unique("channel"), channel_type: "email", recipients: ["sweep@example.com"] },
      }),
    ),
  );
  const alertRule = idOf(
    await createdJson(
      await admin.post("/api/v1/alert_rules", {
        alert_rule: {
          name: unique("rule"),
          condition: "run_failed",
          sync_id: sync,
          channel_ids: [alertChannel],
        },
      }),
    ),
  );
  return {
    ids: {
      workspace: workspaceId,
      source,
      destination,
      model,
      sync,
      run,
      sequence,
      catalog,
      role,
      token,
      member,
      webhook,
      delivery,
      alertChannel,
      alertRule,
      definition: "Postgresql",
    },
    drop: () => sql(`DROP TABLE IF EXISTS ${table}`),
  };
}
