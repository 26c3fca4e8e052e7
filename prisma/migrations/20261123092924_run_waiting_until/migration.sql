-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "retry_waits" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "waiting_until" TIMESTAMPTZ(3);
