// The CSV export streams a run's records a few blocks at a time: a large run comes out whole, filtered,
// without the process holding the run in memory.
import { beforeAll, describe, expect, it } from "vitest";
import { encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { seedRecords } from "@/tests/support/record-blocks";
import { exportSyncRecords } from "./records-export";

useTestDatabase();

const ROWS = 200_000;
let ws: number;
let syncId: number;
let runId: number;
const auth = () => ({ workspaceId: ws, user: { id: 0, email: "", name: "" } });

beforeAll(async () => {
  ws = await newWorkspace();
  const connector = (type: "source" | "destination") =>
    prisma().connector.create({
      data: { workspaceId: ws, connectorType: type, connectorName: "Postgresql", name: `${type}-export`, configurationEncrypted: encryptJson({ host: "db" }) },
    });
  const [source, destination] = [await connector("source"), await connector("destination")];
  const model = await prisma().model.create({ data: { workspaceId: ws, connectorId: source.id, name: "m", query: "select 1", primaryKey: "id" } });
  const sync = await prisma().sync.create({
    data: { workspaceId: ws, sourceId: source.id, destinationId: destination.id, modelId: model.id, scheduleType: "manual", syncMode: "full_refresh", streamName: "t" },
  });
  syncId = sync.id;
  runId = (await prisma().syncRun.create({ data: { workspaceId: ws, syncId, status: "success", finishedAt: new Date() } })).id;
  // Every tenth record failed, its error a formula.
  await seedRecords(
    syncId,
    runId,
    Array.from({ length: ROWS }, (_, i) => ({
      key: String(i + 1),
      record: { id: i + 1, email: `u${i + 1}@example.com` },
      action: "destination_insert" as const,
      outcome: (i + 1) % 10 === 0 ? ("failed" as const) : ("success" as const),
      error: (i + 1) % 10 === 0 ? '=HYPERLINK("http://evil")' : undefined,
    })),
    5000,
  );
  expect((await prisma().syncRecordBlock.aggregate({ where: { syncRunId: runId }, _sum: { size: true } }))._sum.size).toBe(ROWS);
}, 120_000);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ lines: number; first: string[]; peakHeapMb: number }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let lines = 0;
  const first: string[] = [];
  let rest = "";
  let peak = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = rest + decoder.decode(value, { stream: true });
    const parts = text.split("\r\n");
    rest = parts.pop() ?? "";
    lines += parts.length;
    if (first.length < 3) first.push(...parts.slice(0, 3 - first.length));
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  return { lines, first, peakHeapMb: Math.round(peak / 1e6) };
}

describe("exportSyncRecords", () => {
  it("streams every record of a large run, then only the filtered ones, formulas defused", async () => {
    const before = Math.round(process.memoryUsage().heapUsed / 1e6);
    const started = performance.now();
    const all = await readAll(await exportSyncRecords(auth(), syncId, runId, {}));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    // A measurement for the report, not an assertion: timings belong in the bench.
    console.log(`export of ${ROWS} records: ${seconds} s, heap ${before} MB before, ${all.peakHeapMb} MB at most while streaming`);
    expect(all.lines).toBe(ROWS + 1);
    expect(all.first[0]).toBe("record_id,primary_key,status,action,error,created_at,source_row");

    const failed = await readAll(await exportSyncRecords(auth(), syncId, runId, { status: "failed" }));
    expect(failed.lines).toBe(ROWS / 10 + 1);
    expect(failed.first[1]).toContain(`,10,failed,destination_insert,"'=HYPERLINK(""http://evil"")",`);
  }, 120_000);

  it("is a 404 for another workspace, before any byte", async () => {
    const other = await newWorkspace("other");
    await expect(exportSyncRecords({ workspaceId: other, user: { id: 0, email: "", name: "" } }, syncId, runId, {})).rejects.toBeInstanceOf(NotFound);
  });
});
