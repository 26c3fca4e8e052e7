-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "canceled_by" TEXT,
ADD COLUMN     "estimate_source" TEXT,
ADD COLUMN     "estimated_rows" INTEGER;
