-- DropIndex
DROP INDEX "sync_records_sync_run_id_id_idx";

-- DropIndex
DROP INDEX "sync_records_sync_run_id_primary_key_key";

-- DropIndex
DROP INDEX "sync_states_sync_id_last_status_idx";

-- AlterTable
ALTER TABLE "sync_records" DROP CONSTRAINT "sync_records_pkey",
ALTER COLUMN "record" SET DATA TYPE JSON,
ADD CONSTRAINT "sync_records_pkey" PRIMARY KEY ("sync_run_id", "id");
