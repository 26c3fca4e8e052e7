-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "write_target" JSONB;
