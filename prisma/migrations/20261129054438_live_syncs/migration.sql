-- Live syncs (issue 39): a flag, and the last source position (LSN) whose changes a live sync recorded.
-- AlterTable
ALTER TABLE "syncs" ADD COLUMN     "live" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "live_lsn" TEXT;
