-- CreateEnum
CREATE TYPE "alert_channel_type" AS ENUM ('email', 'slack', 'webhook');

-- CreateEnum
CREATE TYPE "alert_condition" AS ENUM ('run_failed', 'rejected_rows_percent', 'rejected_rows', 'run_duration', 'rows_changed', 'sync_not_succeeded');

-- CreateEnum
CREATE TYPE "alert_status" AS ENUM ('ok', 'firing');

-- CreateEnum
CREATE TYPE "alert_event_kind" AS ENUM ('firing', 'resolved');

-- CreateTable
CREATE TABLE "alert_channels" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "channel_type" "alert_channel_type" NOT NULL,
    "configuration_encrypted" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "sync_id" INTEGER,
    "name" TEXT NOT NULL,
    "condition" "alert_condition" NOT NULL,
    "threshold" DOUBLE PRECISION,
    "channel_ids" INTEGER[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_states" (
    "alert_rule_id" INTEGER NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "status" "alert_status" NOT NULL DEFAULT 'ok',
    "since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_run_id" INTEGER,
    "last_event_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_states_pkey" PRIMARY KEY ("alert_rule_id","sync_id")
);

-- CreateTable
CREATE TABLE "alert_events" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "alert_rule_id" INTEGER,
    "rule_name" TEXT NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "sync_run_id" INTEGER,
    "kind" "alert_event_kind" NOT NULL,
    "subject" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "deliveries" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_channels_workspace_id_created_at_idx" ON "alert_channels"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "alert_rules_workspace_id_created_at_idx" ON "alert_rules"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "alert_rules_sync_id_idx" ON "alert_rules"("sync_id");

-- CreateIndex
CREATE INDEX "alert_events_workspace_id_created_at_idx" ON "alert_events"("workspace_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "alert_channels" ADD CONSTRAINT "alert_channels_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_sync_id_fkey" FOREIGN KEY ("sync_id") REFERENCES "syncs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_states" ADD CONSTRAINT "alert_states_alert_rule_id_fkey" FOREIGN KEY ("alert_rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
