// A live sync's state, lag and throughput through GET /api/v1/syncs/{id}/live (its real route
// handler), the lag alerts of the periodic check, and the attacks: a Viewer of another workspace
// learns nothing and makes no connection to the source; a source that never answers costs one
// connection however often the status is asked, and answers within the deadline with an error.
// The source: a private wal_level=logical PostgreSQL (the shared server runs wal_level=replica).
import { createServer, type Socket } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as liveRoute } from "@/app/api/v1/syncs/[id]/live/route";
import { signToken } from "@/lib/auth/jwt";
import { liveSlotName } from "@/lib/connectors/live";
import { postgresqlLive } from "@/lib/connectors/postgresql/live";
import { encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { stopEngine, triggerSync } from "@/lib/engine";
import { executeRun } from "@/lib/engine/execute-run";
import { catalogOf, createFixture, pgConnectorConfig, sql, tableStream, waitFor, type Fixture } from "@/lib/engine/test-support";
import type { LiveStatusBody } from "@/lib/serializers/live-status.schema";
import { sweepAlerts } from "@/lib/services/notifications/alerts/evaluate";
import { newMember } from "@/tests/support/auth-fixtures";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";
import { forgetLag } from "./live-lag";

useTestDatabase();
const logical = useLogicalPostgres("live_status_source");
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  process.env.ENGINE_LIVE_PERIOD_SECONDS = "8";
  process.env.ENGINE_STATUS_POLL_MS = "200";
  destination = await createScratchDatabase("ds_live_status_dst");
  await sql(logical().url, "CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL)");
  await sql(logical().url, "INSERT INTO people SELECT g, 'Person ' || g FROM generate_series(1, 50) g");
  await sql(destination.url, "CREATE TABLE people_out (id integer PRIMARY KEY, name text NOT NULL)");
});

afterAll(async () => {
  delete process.env.ENGINE_LIVE_LAGGING_SECONDS;
  await stopEngine();
  await destination?.drop();
});

type Caller = { token: string; workspaceId: number };

async function caller(role: "Admin" | "Viewer", workspaceId?: number): Promise<Caller> {
  const m = await newMember(role, workspaceId);
  return { token: (await signToken({ userId: m.user.id, kind: "session" })).token, workspaceId: m.workspaceId };
}

/** GET /api/v1/syncs/{id}/live as Next.js would call it. */
async function getLive(who: Caller, syncId: number): Promise<{ status: number; body: { data: LiveStatusBody } & { message?: string } }> {
  const req = new NextRequest(`http://127.0.0.1/api/v1/syncs/${syncId}/live`, {
    headers: { authorization: `Bearer ${who.token}`, "workspace-id": String(who.workspaceId) },
  });
  const res = await liveRoute(req, { params: Promise.resolve({ id: String(syncId) }) });
  return { status: res.status, body: (await res.json()) as { data: LiveStatusBody } };
}

async function liveSync(workspaceId: number): Promise<Fixture> {
  return createFixture({
    workspaceId,
    sourceUrl: logical().url,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("people_out")) },
    query: "SELECT id, name FROM people",
    sync: { configuration: [{ from: "id", to: "id", mapping_type: "standard" }, { from: "name", to: "name", mapping_type: "standard" }], live: true, syncMode: "incremental" },
  });
}

async function destinationCount(): Promise<number> {
  const [row] = await sql<{ n: number }>(destination.url, "SELECT count(*)::int AS n FROM people_out");
  return row.n;
}

describe("a live sync's status through the API", () => {
  it("shows backfilling, streaming with lag and throughput, lagging, stopped; the lag alerts fire and resolve", { timeout: 120_000 }, async () => {
    const admin = await caller("Admin");
    const viewer = await caller("Viewer", admin.workspaceId);
    const f = await liveSync(admin.workspaceId);
    const run = await triggerSync(f.workspaceId, f.syncId);
    // Queued, never backfilled: backfilling (the run holds the stream from its first moment).
    const before = await getLive(viewer, f.syncId);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ sync_id: f.syncId, state: "backfilling", slot: liveSlotName(f.syncId), throughput: null, run: { id: run.id } });

    const execution = executeRun(run.id);
    await waitFor(async () => ((await destinationCount()) === 50 ? true : undefined), 30_000, "the backfill");
    await sql(logical().url, "INSERT INTO people SELECT g, 'New ' || g FROM generate_series(51, 60) g");
    await sql(logical().url, "UPDATE people SET name = 'Renamed' WHERE id <= 5");
    await waitFor(async () => ((await destinationCount()) === 60 ? true : undefined), 30_000, "the streamed changes");
    const streaming = await waitFor(async () => {
      forgetLag(f.syncId);
      const { body } = await getLive(viewer, f.syncId);
      return body.data.state === "streaming" && (body.data.throughput?.changes ?? 0) >= 15 ? body.data : undefined;
    }, 30_000, "streaming with the changes counted");
    expect(streaming.run?.id).toBe(run.id);
    expect(streaming.throughput).toMatchObject({ run_id: run.id, changes: 15 });
    expect(streaming.throughput!.changes_per_second).toBeGreaterThan(0);
    expect(streaming.lag.error).toBeNull();
    expect(typeof streaming.lag.bytes).toBe("number");
    expect(streaming.lag.seconds).not.toBeNull();
    // Every change up to a recent commit is recorded: a time of this run (a commit time read as from 1970 or 2056 would not be).
    const progress = await prisma().liveProgress.findUniqueOrThrow({ where: { syncId: f.syncId } });
    expect(progress.caughtUpAt!.getTime()).toBeGreaterThanOrEqual(progress.streamingSince.getTime() - 60_000);
    expect(progress.caughtUpAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await execution).toBe("success");

    // The next rolling run is queued but no worker takes it: a change waits in the slot, and once it is
    // older than ENGINE_LIVE_LAGGING_SECONDS the sync is lagging.
    process.env.ENGINE_LIVE_LAGGING_SECONDS = "1";
    await sql(logical().url, "INSERT INTO people VALUES (61, 'Waiting')");
    const lagging = await waitFor(async () => {
      forgetLag(f.syncId);
      const { body } = await getLive(viewer, f.syncId);
      return body.data.state === "lagging" ? body.data : undefined;
    }, 30_000, "lagging");
    expect(lagging.lag.bytes).toBeGreaterThan(0);
    expect(lagging.lag.seconds).toBeGreaterThan(1);
    // The last rolling run's throughput stays shown, over its own streaming time.
    expect(lagging.throughput).toMatchObject({ run_id: run.id, changes: 15 });

    const bytesRule = await prisma().alertRule.create({
      data: { workspaceId: admin.workspaceId, syncId: f.syncId, name: "slot over 1 byte", condition: "live_lag_bytes", threshold: 1, channelIds: [] },
    });
    const secondsRule = await prisma().alertRule.create({
      data: { workspaceId: admin.workspaceId, syncId: null, name: "a day behind", condition: "live_lag_seconds", threshold: 86_400, channelIds: [] },
    });
    await sweepAlerts();
    const fired = await prisma().alertEvent.findMany({ where: { alertRuleId: { in: [bytesRule.id, secondsRule.id] } } });
    expect(fired.map((e) => [e.alertRuleId, e.kind, e.syncId])).toEqual([[bytesRule.id, "firing", f.syncId]]);
    expect(fired[0].message).toContain("replication slot holds more than 1 bytes");
    // Swept again: still firing, no second message.
    await sweepAlerts();
    expect(await prisma().alertEvent.count({ where: { alertRuleId: bytesRule.id } })).toBe(1);

    // Disabled (its slot dropped, as the service does): stopped, nothing held, the alert resolves.
    await prisma().sync.update({ where: { id: f.syncId }, data: { status: "disabled" } });
    await postgresqlLive.drop(pgConnectorConfig(logical().url), f.syncId);
    forgetLag(f.syncId);
    const stopped = await getLive(viewer, f.syncId);
    expect(stopped.body.data).toMatchObject({ state: "stopped", run: null, lag: { bytes: null, seconds: null, error: null } });
    await sweepAlerts();
    const events = await prisma().alertEvent.findMany({ where: { alertRuleId: bytesRule.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["firing", "resolved"]);
  });

  it("answers 409 for a sync that is not live, and 404 to a Viewer of another workspace, who makes no connection to the source", { timeout: 60_000 }, async () => {
    const admin = await caller("Admin");
    // The source: a server that counts connections and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const f = await liveSync(admin.workspaceId);
      await prisma().connector.update({
        where: { id: f.sourceId },
        data: { configurationEncrypted: encryptJson(pgConnectorConfig(`postgresql://postgres@127.0.0.1:${port}/silent`)) },
      });
      const outsider = await caller("Viewer");
      const refused = await getLive(outsider, f.syncId);
      expect(refused.status).toBe(404);
      expect(JSON.stringify(refused.body)).not.toMatch(/datasync_live|lag|silent/);
      expect(sockets).toHaveLength(0);

      // The workspace's own reader: the source is asked once, within the deadline, and says why it could not answer.
      const viewer = await caller("Viewer", admin.workspaceId);
      const [first, second] = await Promise.all([getLive(viewer, f.syncId), getLive(viewer, f.syncId)]);
      for (const answer of [first, second]) {
        expect(answer.status).toBe(200);
        expect(answer.body.data.lag).toMatchObject({ bytes: null, error: "The source did not answer within 3 s." });
      }
      const third = await getLive(viewer, f.syncId);
      expect(third.body.data.lag.error).toBe("The source did not answer within 3 s.");
      expect(sockets).toHaveLength(1);

      await prisma().sync.update({ where: { id: f.syncId }, data: { live: false } });
      const notLive = await getLive(viewer, f.syncId);
      expect(notLive.status).toBe(409);
      expect(notLive.body.message).toMatch(/is not live/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
