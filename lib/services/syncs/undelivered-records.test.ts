// undeliveredRows against real blocks and states: a failed key counts while its state is still
// failed, whatever its key line looks like (a quoted key is stored as JSON: records/format.ts).
import { describe, expect, it } from "vitest";
import { pgPool, prisma } from "@/lib/db/client";
import { writeRecordBlocks } from "@/lib/engine/records/write";
import { catalogOf, createFixture, pgConnectorConfig, tableStream } from "@/lib/engine/test-support";
import type { Outcome } from "@/lib/engine/batch";
import { useTestDatabase } from "@/tests/support/db";
import { undeliveredRows } from "./undelivered-records";

const database = useTestDatabase();

const failed = (key: string): Outcome => ({ item: { key, action: "destination_insert", json: "{}" }, ok: false, error: "refused" }) as Outcome;
const sent = (key: string): Outcome => ({ item: { key, action: "destination_insert", json: "{}" }, ok: true }) as Outcome;

describe("undeliveredRows", () => {
  it("counts the run's failed keys whose state is still failed", async () => {
    const f = await createFixture({
      sourceUrl: database.url(),
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(database.url()), catalog: catalogOf(tableStream("people")) },
    });
    const run = await prisma().syncRun.create({
      data: { workspaceId: f.workspaceId, syncId: f.syncId, status: "success", syncRunType: "general", failedRows: 3 },
    });
    const client = await pgPool().connect();
    try {
      await writeRecordBlocks(client, f.syncId, run.id, [failed("a"), sent("b"), failed('"quoted"'), failed("c")]);
    } finally {
      client.release();
    }
    // a: still failed; "quoted": still failed; c: delivered since.
    await prisma().syncState.createMany({
      data: [
        { syncId: f.syncId, primaryKey: "a", fingerprint: "x", lastStatus: "failed", lastRunId: run.id },
        { syncId: f.syncId, primaryKey: '"quoted"', fingerprint: "x", lastStatus: "failed", lastRunId: run.id },
        { syncId: f.syncId, primaryKey: "c", fingerprint: "x", lastStatus: "success", lastRunId: run.id },
        { syncId: f.syncId, primaryKey: "b", fingerprint: "x", lastStatus: "failed", lastRunId: run.id },
      ],
    });
    expect(await undeliveredRows(f.workspaceId, f.syncId, run.id)).toEqual({ failed_rows: 3, undelivered_rows: 2 });
  });
});
