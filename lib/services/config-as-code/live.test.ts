// A configuration file turns live syncs on and off as the API does (docs/live-syncs.md), once its
// apply commits: created live, the first run (the backfill) is queued at once and streams; live: false
// ends the rolling run and drops the slot; on again, a run is queued again; pruned, the sync's stream
// ends and its slot goes. A plan queues nothing. On a private wal_level=logical PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveSlotName } from "@/lib/connectors/live";
import { prisma } from "@/lib/db/client";
import { stopEngine } from "@/lib/engine";
import { executeRun } from "@/lib/engine/execute-run";
import { pgConnectorConfig, sql, tableStream, waitFor } from "@/lib/engine/test-support";
import { configDocumentSchema, type ConfigDocumentInput } from "@/lib/validation/config";
import { newMember } from "@/tests/support/auth-fixtures";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { createLiveTable } from "@/tests/support/live-fixture";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";
import { applyConfig, planConfig } from "./config";

useTestDatabase();
const logical = useLogicalPostgres("config_live_source");
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  process.env.ENGINE_STATUS_POLL_MS = "200";
  process.env.ENGINE_LIVE_PERIOD_SECONDS = "60";
  destination = await createScratchDatabase("ds_config_live_dst");
  await createLiveTable(logical().url, "items", { rows: 30, label: "Item" });
  await createLiveTable(destination.url, "items_dst");
});

afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

/** A connector's configuration with its password as a reference to the file's secrets. */
function withSecret(url: string, secret: string) {
  const config = pgConnectorConfig(url);
  return { ...config, credentials: { ...(config.credentials as object), password: `\${env:${secret}}` } };
}

function document(live: boolean, extra: Partial<ConfigDocumentInput> = {}) {
  const input: ConfigDocumentInput = {
    version: 1,
    connectors: [
      { slug: "src", name: "Source", connector_type: "source", connector_name: "Postgresql", configuration: withSecret(logical().url, "DATASYNC_SECRET_SRC") },
      {
        slug: "dst",
        name: "Destination",
        connector_type: "destination",
        connector_name: "Postgresql",
        configuration: withSecret(destination.url, "DATASYNC_SECRET_DST"),
        catalog: { streams: [tableStream("items_dst")] },
      },
    ],
    models: [{ slug: "items", name: "Items", connector: "src", query: "SELECT id, name FROM items", query_type: "raw_sql", primary_key: "id" }],
    syncs: [
      {
        slug: "items-live",
        name: "Items live",
        source: "src",
        destination: "dst",
        model: "items",
        stream_name: "items_dst",
        sync_mode: "incremental",
        write_mode: "mirror",
        schedule_type: "manual",
        live,
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "name", to: "name", mapping_type: "standard" },
        ],
      },
    ],
    secrets: {
      DATASYNC_SECRET_SRC: decodeURIComponent(new URL(logical().url).password),
      DATASYNC_SECRET_DST: decodeURIComponent(new URL(destination.url).password),
    },
    ...extra,
  };
  return configDocumentSchema.parse(input);
}

const slotExists = async (syncId: number) =>
  (await sql(logical().adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(syncId)])).length > 0;
const destinationCount = async () => Number((await sql<{ n: string }>(destination.url, "SELECT count(*) AS n FROM items_dst"))[0].n);
const queuedRun = (syncId: number) => prisma().syncRun.findFirst({ where: { syncId, syncRunType: "general", status: "queued" }, orderBy: { id: "desc" } });

describe("config as code and live syncs", () => {
  it("starts a sync created live once the apply commits, stops it when live goes off, starts it again, and releases it when pruned", { timeout: 180_000 }, async () => {
    const admin = await newMember("Admin");
    // A plan writes nothing and queues nothing.
    const plan = await planConfig(admin.auth, document(true));
    expect(plan.summary).toMatchObject({ create: 4 });
    expect(await prisma().syncRun.count({ where: { workspaceId: admin.workspaceId } })).toBe(0);

    // Created live: its first run is queued at once, as POST /syncs queues it, and it backfills then streams.
    const applied = await applyConfig(admin.auth, document(true));
    const syncId = applied.changes.find((c) => c.kind === "syncs")?.id as number;
    const first = await queuedRun(syncId);
    expect(first).not.toBeNull();
    const streaming = executeRun(first!.id);
    await waitFor(async () => ((await destinationCount()) === 30 ? true : undefined), 30_000, "the backfill");
    expect(await slotExists(syncId)).toBe(true);
    await sql(logical().url, "INSERT INTO items VALUES (31, 'Item 31')");
    await waitFor(async () => ((await destinationCount()) === 31 ? true : undefined), 30_000, "a streamed insert");

    // live: false by the file: the rolling run ends (success) within a status poll, the slot is dropped, no next run.
    const off = await applyConfig(admin.auth, document(false));
    expect(off.changes.map((c) => `${c.action} ${c.kind} ${c.slug} ${c.fields.map((f) => f.field).join(",")}`)).toEqual(["update syncs items-live live"]);
    expect(await streaming).toBe("success");
    await waitFor(async () => (!(await slotExists(syncId)) ? true : undefined), 20_000, "the slot dropped");
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: syncId } })).liveLsn).toBeNull();
    expect(await queuedRun(syncId)).toBeNull();

    // On again: a run is queued again (it backfills anew: the slot was dropped).
    await applyConfig(admin.auth, document(true));
    const again = await queuedRun(syncId);
    expect(again).not.toBeNull();
    const second = executeRun(again!.id);
    await waitFor(async () => ((await prisma().sync.findUniqueOrThrow({ where: { id: syncId } })).liveLsn !== null ? true : undefined), 30_000, "the second backfill");
    expect(await slotExists(syncId)).toBe(true);

    // Pruned by the file: the stream stops (the run ends canceled) and the slot goes.
    const pruned = await applyConfig(admin.auth, document(true, { prune: true, syncs: [] }));
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.slug}`)).toEqual(["delete syncs items-live"]);
    expect(await second).toBe("canceled");
    await waitFor(async () => (!(await slotExists(syncId)) ? true : undefined), 20_000, "the deleted sync's slot dropped");
  });
});
