-- Live syncs shown and alerted on (issue 39): lag alert conditions, and each live sync's stream progress
-- (the run streaming, its changes, the time up to which every change is recorded).
-- AlterEnum
ALTER TYPE "alert_condition" ADD VALUE 'live_lag_bytes';
ALTER TYPE "alert_condition" ADD VALUE 'live_lag_seconds';

-- CreateTable
CREATE TABLE "live_progress" (
    "sync_id" INTEGER NOT NULL,
    "run_id" INTEGER NOT NULL,
    "streaming_since" TIMESTAMPTZ(3) NOT NULL,
    "changes" INTEGER NOT NULL DEFAULT 0,
    "caught_up_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "live_progress_pkey" PRIMARY KEY ("sync_id")
);

-- AddForeignKey
ALTER TABLE "live_progress" ADD CONSTRAINT "live_progress_sync_id_fkey" FOREIGN KEY ("sync_id") REFERENCES "syncs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
