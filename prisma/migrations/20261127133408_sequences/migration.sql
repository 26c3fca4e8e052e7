-- CreateTable
CREATE TABLE "sync_dependencies" (
    "workspace_id" INTEGER NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "upstream_sync_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_dependencies_pkey" PRIMARY KEY ("sync_id","upstream_sync_id")
);

-- CreateTable
CREATE TABLE "sequence_runs" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "triggered_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sequence_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sequence_run_steps" (
    "sequence_run_id" INTEGER NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "upstream_sync_ids" INTEGER[],
    "sync_run_id" INTEGER,
    "state" TEXT NOT NULL DEFAULT 'waiting',
    "reason" TEXT,
    "dependents_checked_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sequence_run_steps_pkey" PRIMARY KEY ("sequence_run_id","sync_id")
);

-- CreateIndex
CREATE INDEX "sync_dependencies_upstream_sync_id_idx" ON "sync_dependencies"("upstream_sync_id");

-- CreateIndex
CREATE INDEX "sync_dependencies_workspace_id_idx" ON "sync_dependencies"("workspace_id");

-- CreateIndex
CREATE INDEX "sequence_runs_workspace_id_created_at_idx" ON "sequence_runs"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "sequence_run_steps_sync_run_id_idx" ON "sequence_run_steps"("sync_run_id");

-- AddForeignKey
ALTER TABLE "sequence_run_steps" ADD CONSTRAINT "sequence_run_steps_sequence_run_id_fkey" FOREIGN KEY ("sequence_run_id") REFERENCES "sequence_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
