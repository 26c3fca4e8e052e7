-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "record_columns" JSONB;

-- AlterTable
ALTER TABLE "sync_records" ADD COLUMN     "row_text" TEXT,
ALTER COLUMN "record" DROP NOT NULL;

-- Keys compare byte-wise: every diff probes this index once per row read, and a libc collation
-- (C.UTF-8, en_US…) costs a strcoll() per comparison for an order nobody reads. Delete detection
-- pages through keys in this same column order, so it stays consistent.
ALTER TABLE "sync_states" ALTER COLUMN "primary_key" TYPE TEXT COLLATE "C";
