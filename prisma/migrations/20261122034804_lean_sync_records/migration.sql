-- DropForeignKey
ALTER TABLE "sync_records" DROP CONSTRAINT "sync_records_sync_id_fkey";

-- DropIndex
DROP INDEX "sync_records_sync_run_id_action_id_idx";

-- DropIndex
DROP INDEX "sync_records_sync_id_idx";
