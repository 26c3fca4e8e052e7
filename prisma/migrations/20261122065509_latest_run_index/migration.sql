-- CreateIndex
CREATE INDEX "sync_runs_sync_id_created_at_id_idx" ON "sync_runs"("sync_id", "created_at" DESC, "id" DESC);
