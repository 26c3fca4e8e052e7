-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "record_columns" JSONB;

-- AlterTable
ALTER TABLE "sync_records" ADD COLUMN     "row_text" TEXT,
ALTER COLUMN "record" DROP NOT NULL;

-- Keys compare byte-wise: every diff probes this index once per row read, and a libc collation
-- (C.UTF-8, en_US…) costs a strcoll() per comparison for an order nobody reads. Delete detection
-- pages through keys in this same column order, so it stays consistent.
ALTER TABLE "sync_states" ALTER COLUMN "primary_key" TYPE TEXT COLLATE "C";

-- Most records succeed, and a listing of successes walks the primary key (run, id) anyway: only the
-- others need an index of their own. One index entry less per recorded row.
DROP INDEX IF EXISTS "sync_records_sync_run_id_status_id_idx";
CREATE INDEX "sync_records_failed" ON "sync_records" ("sync_run_id", "id") WHERE "status" = 'failed';
