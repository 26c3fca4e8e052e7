// The migration to record blocks keeps every record that was stored one row each: same id, key,
// row, status, action, error and log, read back through the view sync_record_rows; and the blocks
// written afterwards take ids above every old one.
import { Client } from "pg";
import { afterAll, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/db";
import { readMigrations } from "./migrate";

const MIGRATION = "20261127161822_record_blocks";
const scratch: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((s) => s.drop()));
});

it("turns each sync_records row into a one-record block with the same id and contents", async () => {
  const db = await createScratchDatabase("ds_mig_blocks");
  scratch.push(db);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const migrations = await readMigrations();
    const at = migrations.findIndex((m) => m.name === MIGRATION);
    expect(at).toBeGreaterThan(0);
    for (const m of migrations.slice(0, at)) await client.query(m.sql);
    const legacy = [
      [7, "1", '{"id": 1,\n "name": "Ada"}', null, "success", "destination_insert", null, null],
      [9, "2", null, "2\tGrace\t\\N", "failed", "destination_update", "HTTP 500", '{"level": "error", "response": {"line": "boom"}}'],
      [12, '"quoted', null, null, "skipped", "destination_delete", "Already delivered with idempotency key abc; not sent again.", null],
      [15, "two\nlines", '{"id": 4}', null, "skipped", "destination_insert", "Left alone by the write mode.", null],
      [900, "5", '{"id": 5}', null, "pending", "destination_insert", null, null],
    ] as const;
    for (const [id, key, record, rowText, status, action, error, logs] of legacy) {
      await client.query(
        `INSERT INTO sync_records (id, sync_id, sync_run_id, primary_key, record, row_text, status, action, error, logs)
         VALUES ($1, 3, 4, $2, $3::json, $4, $5::sync_record_status, $6::sync_record_action, $7, $8::jsonb)`,
        [id, key, record, rowText, status, action, error, logs],
      );
    }
    await client.query(migrations[at].sql);

    const { rows } = await client.query(
      `SELECT id::int, sync_id, sync_run_id, primary_key, record::text AS record, row_text, status::text, action::text, error, logs::text AS logs
         FROM sync_record_rows ORDER BY id`,
    );
    expect(rows).toEqual(
      legacy.map(([id, key, record, rowText, status, action, error, logs]) => ({
        id,
        sync_id: 3,
        sync_run_id: 4,
        primary_key: key,
        // Line breaks between JSON tokens become spaces; the value is the same.
        record: record?.replace("\n", " ") ?? null,
        row_text: rowText,
        status,
        action,
        error,
        logs,
      })),
    );
    // The skip already delivered counts as delivered, the other skip as skipped.
    const { rows: codes } = await client.query("SELECT first_id::int, codes, failed FROM sync_record_blocks ORDER BY first_id");
    expect(codes.map((c) => c.codes).join("")).toBe("AELGM");
    expect(codes.map((c) => c.failed)).toEqual([0, 1, 0, 0, 0]);

    await client.query("INSERT INTO sync_record_blocks (sync_id, sync_run_id, size, failed, codes, keys, rows) VALUES (3, 5, 1, 0, 'A', 'k', '')");
    const { rows: next } = await client.query<{ first_id: string }>("SELECT first_id FROM sync_record_blocks WHERE sync_run_id = 5");
    expect(BigInt(next[0].first_id)).toBeGreaterThanOrEqual(BigInt(1e12));
  } finally {
    await client.end();
  }
});
