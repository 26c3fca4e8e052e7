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
import { postgresqlLive } from "@/lib/connectors/postgresql/live";
import { CANCELED_ERROR } from "@/lib/sync-rules/run-outcome";
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
  // The destination table: without it a run fails on its own, which is what made the delete test
  // end "failed" under load (its backfill's write failed before the cancel landed).
  await sql(replica.url, "CREATE TABLE people_out (id integer PRIMARY KEY)");
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

const slots = async (syncId: number) => (await sql(logical().adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(syncId)])).length;
const publications = async (syncId: number) => (await sql(logical().url, "SELECT 1 FROM pg_publication WHERE pubname = $1", [liveSlotName(syncId)])).length;

/** Backfilled and streaming: the position recorded and the slot's stream open. */
async function streaming(syncId: number): Promise<void> {
  await waitFor(
    async () => {
      const sync = await prisma().sync.findUniqueOrThrow({ where: { id: syncId } });
      if (sync.liveLsn === null) return undefined;
      const active = await sql(logical().adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL", [liveSlotName(syncId)]);
      return active.length === 1 ? true : undefined;
    },
    30_000,
    "the run to stream",
  );
}

/** Runs with this status poll (ENGINE_STATUS_POLL_MS is read as the run starts), restored after. */
function withStatusPoll<T>(ms: number, start: () => Promise<T>): Promise<T> {
  const before = process.env.ENGINE_STATUS_POLL_MS;
  process.env.ENGINE_STATUS_POLL_MS = String(ms);
  return start().finally(() => {
    if (before === undefined) delete process.env.ENGINE_STATUS_POLL_MS;
    else process.env.ENGINE_STATUS_POLL_MS = before;
  });
}
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

  it("drops the slot and publication when the sync is deleted; the run, its slot dropped under its stream, ends canceled", { timeout: 60_000 }, async () => {
    const created = await createSync(member.auth, input());
    const run = await prisma().syncRun.findFirstOrThrow({ where: { syncId: created.id } });
    // The run learns of the delete only from its stream breaking: the drop always goes first.
    const execution = withStatusPoll(60_000, () => executeRun(run.id));
    await streaming(created.id);
    await deleteSync(member.auth, created.id);
    // As the release did before it waited for the run's lock. The run's own drop may meet this one once
    // its stream broke: neither may end the other's session (one did, before drop() looked at who held the slot).
    await postgresqlLive.drop(pgConnectorConfig(logical().url), created.id);
    expect(await execution).toBe("canceled");
    expect(await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: "failed", error: CANCELED_ERROR });
    await waitFor(async () => ((await slots(created.id)) + (await publications(created.id)) === 0 ? true : undefined), 30_000, "the slot and publication to go");
  });

  it("ends the rolling run well when live is turned off and the slot goes before the run notices", { timeout: 60_000 }, async () => {
    const created = await createSync(member.auth, input());
    const run = await prisma().syncRun.findFirstOrThrow({ where: { syncId: created.id } });
    const execution = withStatusPoll(60_000, () => executeRun(run.id));
    await streaming(created.id);
    await updateSync(member.auth, created.id, { live: false });
    // What release.ts does after its wait, before the run's own check came round (it failed the run
    // and the sync with "The live stream stopped" before the fix).
    await postgresqlLive.drop(pgConnectorConfig(logical().url), created.id);
    expect(await execution).toBe("success");
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: created.id } })).status).not.toBe("failed");
    // No next rolling run: the sync is not live any more.
    expect(await prisma().syncRun.count({ where: { syncId: created.id } })).toBe(1);
    await waitFor(async () => ((await slots(created.id)) + (await publications(created.id)) === 0 ? true : undefined), 30_000, "the slot and publication to go");
  });

  it("stops streaming within a status poll when live is turned off, and drops the slot itself", { timeout: 60_000 }, async () => {
    const created = await createSync(member.auth, input());
    const run = await prisma().syncRun.findFirstOrThrow({ where: { syncId: created.id } });
    const execution = executeRun(run.id);
    await streaming(created.id);
    await updateSync(member.auth, created.id, { live: false });
    expect(await execution).toBe("success");
    expect(await slots(created.id)).toBe(0);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: created.id } })).liveLsn).toBeNull();
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

