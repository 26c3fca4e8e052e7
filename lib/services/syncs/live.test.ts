// A sync may be live only when its source streams and its model is one table: createSync and
// updateSync answer 422 naming what to change (wal_level=logical, the join, the sync mode), and take
// and show the flag when all holds. The source: a private wal_level=logical PostgreSQL; the shared
// server runs wal_level=replica.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptJson } from "@/lib/crypto/encryption";
import { createServer, type Socket } from "node:net";
import { pgPool, prisma } from "@/lib/db/client";
import { ValidationFailed } from "@/lib/errors";
import { liveSlotName } from "@/lib/connectors/live";
import { executeRun } from "@/lib/engine/execute-run";
import { stopEngine } from "@/lib/engine";
import { catalogOf, createFixture, pgConnectorConfig, sql, tableStream, waitFor, type Fixture } from "@/lib/engine/test-support";
import type { CreateSyncInput } from "@/lib/validation/syncs";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { newMember } from "@/tests/support/auth-fixtures";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";
import { createSync, deleteSync, getSync, updateSync } from "./syncs";

useTestDatabase();
const logical = useLogicalPostgres("live_check_source");
let replica: { url: string; drop(): Promise<void> };
let member: Awaited<ReturnType<typeof newMember>>;
let f: Fixture;

beforeAll(async () => {
  replica = await createScratchDatabase("ds_live_replica_src");
  for (const url of [logical().url, replica.url]) {
    await sql(url, "CREATE TABLE people (id integer PRIMARY KEY, name text, active boolean)");
    await sql(url, "CREATE TABLE teams (id integer PRIMARY KEY, person_id integer)");
  }
  member = await newMember("Admin");
  f = await createFixture({
    workspaceId: member.workspaceId,
    sourceUrl: logical().url,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(replica.url), catalog: catalogOf(tableStream("people_out")) },
    query: "SELECT id, name FROM people WHERE active",
  });
});

afterAll(async () => {
  await stopEngine();
  await replica?.drop();
});

let n = 0;
function input(overrides: Partial<CreateSyncInput> = {}): CreateSyncInput {
  return {
    name: `live ${++n}`,
    source_id: f.sourceId,
    destination_id: f.destinationId,
    model_id: f.modelId,
    stream_name: "people_out",
    sync_mode: "incremental",
    schedule_type: "manual",
    configuration: [{ from: "id", to: "id", mapping_type: "standard" }],
    live: true,
    ...overrides,
  } as CreateSyncInput;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationFailed);
  return (err as ValidationFailed).message;
}

async function modelOn(sourceId: number, query: string): Promise<number> {
  const model = await prisma().model.create({ data: { workspaceId: member.workspaceId, connectorId: sourceId, name: `m ${++n}`, query, primaryKey: "id" } });
  return model.id;
}

describe("a live sync's checks", () => {
  it("takes a one-table model on a wal_level=logical source, and shows the flag", async () => {
    const created = await createSync(member.auth, input());
    expect(created.live).toBe(true);
    expect((await getSync(member.workspaceId, created.id)).live).toBe(true);
    // Its first run (the backfill) is queued at once: a live sync needs no schedule.
    expect(await prisma().syncRun.count({ where: { syncId: created.id, status: "queued" } })).toBe(1);
  });

  it("drops the slot and publication when the sync is deleted", { timeout: 60_000 }, async () => {
    const created = await createSync(member.auth, input());
    const run = await prisma().syncRun.findFirstOrThrow({ where: { syncId: created.id } });
    const execution = executeRun(run.id);
    const slots = async () => (await sql(logical().adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(created.id)])).length;
    const publications = async () => (await sql(logical().url, "SELECT 1 FROM pg_publication WHERE pubname = $1", [liveSlotName(created.id)])).length;
    await waitFor(async () => ((await slots()) === 1 ? true : undefined), 30_000, "the slot");
    await deleteSync(member.auth, created.id);
    // Known race (issue 39, left): when the slot is dropped before the stream sees the cancel, the run
    // ends "failed" instead of "canceled" (seen under load). What this test holds is that both go.
    expect(["canceled", "failed"]).toContain(await execution);
    await waitFor(async () => ((await slots()) + (await publications()) === 0 ? true : undefined), 30_000, "the slot and publication to go");
  });

  it("refuses a source without logical replication with a 422 naming wal_level=logical", async () => {
    const source = await prisma().connector.create({
      data: { workspaceId: member.workspaceId, connectorType: "source", connectorName: "Postgresql", name: "replica", configurationEncrypted: encryptJson(pgConnectorConfig(replica.url)) },
    });
    const modelId = await modelOn(source.id, "SELECT id, name FROM people");
    const message = await refusal(createSync(member.auth, input({ source_id: source.id, model_id: modelId })));
    expect(message).toMatch(/sync\.live.*wal_level=replica.*needs wal_level=logical/);
    // Turning it on later is checked the same way.
    const scheduled = await createSync(member.auth, input({ source_id: source.id, model_id: modelId, live: false }));
    expect(await refusal(updateSync(member.auth, scheduled.id, { live: true }))).toMatch(/wal_level=logical/);
    expect((await getSync(member.workspaceId, scheduled.id)).live).toBe(false);
  });

  it("refuses joins (they stay scheduled), and full refresh", async () => {
    const join = await modelOn(f.sourceId, "SELECT p.id, p.name FROM people p JOIN teams t ON t.person_id = p.id");
    expect(await refusal(createSync(member.auth, input({ model_id: join })))).toMatch(/joins tables.*stay on a schedule/);
    expect(await refusal(createSync(member.auth, input({ sync_mode: "full_refresh" })))).toMatch(/needs sync_mode incremental/);
    // A live sync cannot move to a model that joins.
    const live = await createSync(member.auth, input());
    expect(await refusal(updateSync(member.auth, live.id, { model_id: join }))).toMatch(/joins tables/);
  });

  it("asks a source that never answers without holding a connection of the application database", { timeout: 60_000 }, async () => {
    // The attack: a source that takes the connection and says nothing, and live creates sent at once.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const source = await prisma().connector.create({
      data: { workspaceId: member.workspaceId, connectorType: "source", connectorName: "Postgresql", name: `silent ${++n}`, configurationEncrypted: encryptJson(pgConnectorConfig(`postgresql://postgres@127.0.0.1:${port}/silent`)) },
    });
    const modelId = await modelOn(source.id, "SELECT id, name FROM people");
    const creates = Array.from({ length: 3 }, () => refusal(createSync(member.auth, input({ source_id: source.id, model_id: modelId }))));
    await waitFor(async () => (sockets.length === 3 ? true : undefined), 20_000, "the three checks to connect");
    const pool = pgPool();
    expect(pool.totalCount - pool.idleCount, "application-database connections held while the source is silent").toBe(0);
    for (const socket of sockets) socket.destroy();
    silent.close();
    for (const message of await Promise.all(creates)) expect(message).toMatch(/sync\.live/);
  });
});

