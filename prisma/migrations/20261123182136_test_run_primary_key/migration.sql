-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "test_primary_key" TEXT;
