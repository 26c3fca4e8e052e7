-- CreateEnum
CREATE TYPE "write_mode" AS ENUM ('upsert', 'update', 'insert', 'mirror');

-- AlterEnum
ALTER TYPE "sync_run_status" ADD VALUE 'needs_approval';

-- AlterEnum
ALTER TYPE "sync_record_status" ADD VALUE 'skipped';

-- AlterTable
ALTER TABLE "syncs" ADD COLUMN     "guard" JSONB,
ADD COLUMN     "write_mode" "write_mode" NOT NULL DEFAULT 'upsert';

-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "approved_by" TEXT,
ADD COLUMN     "plan" JSONB;
