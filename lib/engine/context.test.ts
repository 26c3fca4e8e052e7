// What a run does with stored JSON that does not match its shape (a catalog, a connector's settings,
// the timings of earlier attempts): it fails with the sentence naming the value and where it
// differs, as any setup problem does, instead of crashing the worker or running on a guess.
import { afterAll, describe, expect, it } from "vitest";
import { encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { useTestDatabase } from "@/tests/support/db";
import { stopEngine, triggerSync } from "./index";
import { loadRunContext, RunSetupError } from "./context";
import { executeRun } from "./execute-run";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, tableStream, type Fixture } from "./test-support";

useTestDatabase();
afterAll(() => stopEngine());

// No database is reached: the context is loaded and refused before any connector call.
const UNREACHED = "postgresql://nobody@127.0.0.1:9/none";

async function fixture(): Promise<Fixture> {
  return createFixture({
    sourceUrl: UNREACHED,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(UNREACHED), catalog: catalogOf(tableStream("people")) },
  });
}

async function queuedRun(f: Fixture) {
  return reloadRun((await triggerSync(f.workspaceId, f.syncId)).id);
}

describe("stored JSON a run reads", () => {
  it("carries the timings of earlier attempts over, a phase not stored counting 0", async () => {
    const f = await fixture();
    const run = await queuedRun(f);
    expect((await loadRunContext(run)).timings).toEqual({ query: 0, diff: 0, load: 0, wait: 0, record: 0 });
    const resumed = await prisma().syncRun.update({ where: { id: run.id }, data: { timings: { query: 12, wait: 3000 } } });
    expect((await loadRunContext(resumed)).timings).toEqual({ query: 12, diff: 0, load: 0, wait: 3000, record: 0 });
  });

  it("fails the run, naming the member, when the destination's catalog does not match its shape", async () => {
    const f = await fixture();
    await prisma().catalog.update({
      where: { connectorId: f.destinationId },
      data: { catalog: { streams: [{ name: "people", batch_size: "many" }], request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 1 } },
    });
    const run = await queuedRun(f);
    expect(await executeRun(run.id)).toBe("failed");
    const failed = await reloadRun(run.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(new RegExp(`^Malformed stored catalog of connector ${f.destinationId}: streams\\.0\\.batch_size: `));
  });

  it("refuses a connector's settings that are not an object, and timings that are not numbers", async () => {
    const f = await fixture();
    const run = await queuedRun(f);
    await prisma().syncRun.update({ where: { id: run.id }, data: { timings: { wait: "long" } } });
    const badTimings = loadRunContext(await reloadRun(run.id));
    await expect(badTimings).rejects.toThrow(RunSetupError);
    await expect(badTimings).rejects.toThrow(`Malformed stored timings of run ${run.id}: wait: `);

    await prisma().connector.update({ where: { id: f.sourceId }, data: { configurationEncrypted: encryptJson(["not", "settings"]) } });
    await expect(loadRunContext(run)).rejects.toThrow(`Malformed stored configuration of connector ${f.sourceId}: (root): `);
  });
});
