// Idempotent triggers against real PostgreSQL: one run per (workspace, key) however many requests
// carry the key at once, the same run for a repeat, a 422 for the key on another sync, keys scoped
// to their workspace, and a malformed header a 400.
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { BadRequest, ValidationFailed } from "@/lib/errors";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { triggerKeyOf, triggerOnce } from "./trigger-keys";

useTestDatabase();

/** A workspace with two syncs (the rows a trigger needs, no real connectors). */
async function workspaceWithSyncs(): Promise<{ ws: number; syncs: [number, number] }> {
  const ws = await newWorkspace();
  const connector = (type: "source" | "destination") =>
    prisma().connector.create({
      data: { workspaceId: ws, connectorType: type, connectorName: type === "source" ? "Postgresql" : "Http", name: `${type} ${ws}`, configurationEncrypted: "x" },
    });
  const source = await connector("source");
  const destination = await connector("destination");
  const model = await prisma().model.create({ data: { workspaceId: ws, connectorId: source.id, name: "model", query: "select 1", primaryKey: "id" } });
  const sync = (name: string) =>
    prisma().sync.create({
      data: { workspaceId: ws, name, sourceId: source.id, destinationId: destination.id, modelId: model.id, configuration: [], scheduleType: "manual", syncMode: "full_refresh", streamName: "stream" },
    });
  return { ws, syncs: [(await sync("a")).id, (await sync("b")).id] };
}

/** A trigger that counts its calls and takes a moment, as a real one does. */
function countingTrigger(ws: number, syncId: number) {
  let calls = 0;
  const trigger = async () => {
    calls++;
    await new Promise((resolve) => setTimeout(resolve, 50));
    return prisma().syncRun.create({ data: { workspaceId: ws, syncId, status: "queued", syncRunType: "general" } });
  };
  return { trigger, calls: () => calls };
}

let a: Awaited<ReturnType<typeof workspaceWithSyncs>>;
let b: Awaited<ReturnType<typeof workspaceWithSyncs>>;

beforeAll(async () => {
  a = await workspaceWithSyncs();
  b = await workspaceWithSyncs();
});

describe("triggerOnce", () => {
  it("makes one run of five requests at once with one key, and answers it to every repeat", async () => {
    const t = countingTrigger(a.ws, a.syncs[0]);
    const runs = await Promise.all(Array.from({ length: 5 }, () => triggerOnce({ workspaceId: a.ws }, a.syncs[0], "job-1", t.trigger)));
    expect(t.calls()).toBe(1);
    expect(new Set(runs.map((r) => r.id)).size).toBe(1);
    const again = await triggerOnce({ workspaceId: a.ws }, a.syncs[0], "job-1", t.trigger);
    expect(again.id).toBe(runs[0].id);
    expect(t.calls()).toBe(1);
    // Another key is another trigger.
    expect((await triggerOnce({ workspaceId: a.ws }, a.syncs[0], "job-2", t.trigger)).id).not.toBe(runs[0].id);
    expect(t.calls()).toBe(2);
  });

  it("refuses the key for another sync with a 422 naming the sync it started", async () => {
    const first = countingTrigger(a.ws, a.syncs[0]);
    await triggerOnce({ workspaceId: a.ws }, a.syncs[0], "job-3", first.trigger);
    const other = countingTrigger(a.ws, a.syncs[1]);
    const refused = triggerOnce({ workspaceId: a.ws }, a.syncs[1], "job-3", other.trigger);
    await expect(refused).rejects.toBeInstanceOf(ValidationFailed);
    await expect(refused).rejects.toThrow(`was used in the last 24 hours to trigger sync ${a.syncs[0]}`);
    expect(other.calls()).toBe(0);
  });

  it("keeps keys per workspace: another tenant's key of the same name neither blocks nor reveals anything", async () => {
    const mine = countingTrigger(a.ws, a.syncs[0]);
    const theirs = countingTrigger(b.ws, b.syncs[0]);
    const runA = await triggerOnce({ workspaceId: a.ws }, a.syncs[0], "shared-name", mine.trigger);
    const runB = await triggerOnce({ workspaceId: b.ws }, b.syncs[0], "shared-name", theirs.trigger);
    expect(runB.id).not.toBe(runA.id);
    expect(runB.syncId).toBe(b.syncs[0]);
    expect(theirs.calls()).toBe(1);
  });

  it("starts again once the key is older than 24 hours", async () => {
    const t = countingTrigger(a.ws, a.syncs[0]);
    const first = await triggerOnce({ workspaceId: a.ws }, a.syncs[0], "job-old", t.trigger);
    await prisma().$executeRaw`UPDATE trigger_keys SET created_at = now() - interval '25 hours' WHERE key = 'job-old'`;
    const second = await triggerOnce({ workspaceId: a.ws }, a.syncs[0], "job-old", t.trigger);
    expect(second.id).not.toBe(first.id);
    expect(t.calls()).toBe(2);
  });
});

describe("triggerKeyOf", () => {
  it("reads the header, absent is null, and a malformed key is a 400", () => {
    expect(triggerKeyOf(new Headers())).toBeNull();
    expect(triggerKeyOf(new Headers({ "Idempotency-Key": "2f1c6b8e-airflow-run-7" }))).toBe("2f1c6b8e-airflow-run-7");
    for (const bad of ["has space", "x".repeat(256), "é"]) {
      expect(() => triggerKeyOf(new Headers({ "Idempotency-Key": bad }))).toThrow(BadRequest);
    }
  });
});
