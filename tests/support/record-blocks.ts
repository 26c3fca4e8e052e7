// Records for tests: written through the engine's own block writer, read back through the API's reader.
import type { RecordLog } from "@/lib/connectors/types";
import { pgPool } from "@/lib/db/client";
import type { Outcome } from "@/lib/engine/batch";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import { blockHeads, readAll } from "@/lib/engine/records/read";
import type { SyncRecord } from "@/lib/engine/records/types";
import { writeRecordBlocks } from "@/lib/engine/records/write";

export interface SeedRecord {
  key: string;
  /** The source row, stored as JSON. */
  record?: Record<string, unknown>;
  action: SyncRecordAction;
  /** `delivered`: skipped as already delivered (counted as delivered). */
  outcome: "success" | "failed" | "skipped" | "delivered";
  error?: string;
  log?: RecordLog;
}

function outcomeOf(r: SeedRecord): Outcome {
  return {
    item: { key: r.key, json: r.record === undefined ? undefined : JSON.stringify(r.record), fingerprint: "", action: r.action },
    ok: r.outcome === "success" || r.outcome === "delivered",
    skipped: r.outcome === "skipped" || r.outcome === "delivered" ? true : undefined,
    error: r.error,
    log: r.log,
  };
}

/** Writes the records as the engine would, `batchSize` records per recorded batch. */
export async function seedRecords(syncId: number, runId: number, records: SeedRecord[], batchSize = 1000): Promise<void> {
  const client = await pgPool().connect();
  try {
    for (let at = 0; at < records.length; at += batchSize) {
      await writeRecordBlocks(client, syncId, runId, records.slice(at, at + batchSize).map(outcomeOf));
    }
  } finally {
    client.release();
  }
}

/** Every record of a run as the API reads it (a record kept as COPY text decoded), in id order. */
export async function allRecords(runId: number, recordColumns: unknown = null): Promise<SyncRecord[]> {
  const options = { runId, recordColumns, filter: {} };
  const out: SyncRecord[] = [];
  for await (const records of readAll(await blockHeads(runId, {}), options)) out.push(...records);
  return out;
}
