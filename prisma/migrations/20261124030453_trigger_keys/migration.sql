-- CreateTable
CREATE TABLE "trigger_keys" (
    "workspace_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "sync_run_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trigger_keys_pkey" PRIMARY KEY ("workspace_id","key")
);
