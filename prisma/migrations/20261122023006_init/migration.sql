-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "connector_type" AS ENUM ('source', 'destination');

-- CreateEnum
CREATE TYPE "connector_category" AS ENUM ('data', 'ai_ml');

-- CreateEnum
CREATE TYPE "query_type" AS ENUM ('raw_sql', 'table_selector', 'ai_ml');

-- CreateEnum
CREATE TYPE "sync_status" AS ENUM ('pending', 'healthy', 'failed', 'disabled', 'aborted');

-- CreateEnum
CREATE TYPE "schedule_type" AS ENUM ('manual', 'interval', 'cron_expression', 'automated');

-- CreateEnum
CREATE TYPE "sync_mode" AS ENUM ('full_refresh', 'incremental');

-- CreateEnum
CREATE TYPE "sync_interval_unit" AS ENUM ('minutes', 'hours', 'days', 'weeks');

-- CreateEnum
CREATE TYPE "sync_run_status" AS ENUM ('pending', 'started', 'querying', 'queued', 'in_progress', 'success', 'paused', 'failed', 'canceled');

-- CreateEnum
CREATE TYPE "sync_run_type" AS ENUM ('general', 'test');

-- CreateEnum
CREATE TYPE "sync_record_status" AS ENUM ('pending', 'success', 'failed');

-- CreateEnum
CREATE TYPE "sync_record_action" AS ENUM ('destination_insert', 'destination_update', 'destination_delete');

-- CreateEnum
CREATE TYPE "role_type" AS ENUM ('system', 'custom');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "last_login_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "roles" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER,
    "role_name" TEXT NOT NULL,
    "role_desc" TEXT NOT NULL DEFAULT '',
    "role_type" "role_type" NOT NULL DEFAULT 'custom',
    "policies" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "roles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspace_users" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "role_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspace_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "role_id" INTEGER,
    "name" TEXT NOT NULL,
    "jti" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "revoked_tokens" (
    "jti" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "revoked_tokens_pkey" PRIMARY KEY ("jti")
);

-- CreateTable
CREATE TABLE "connectors" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "connector_type" "connector_type" NOT NULL,
    "connector_name" TEXT NOT NULL,
    "category" "connector_category" NOT NULL DEFAULT 'data',
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "configuration_encrypted" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalogs" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "catalog" JSONB NOT NULL,
    "catalog_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "catalogs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "query" TEXT NOT NULL,
    "query_type" "query_type" NOT NULL DEFAULT 'raw_sql',
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "primary_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "syncs" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "source_id" INTEGER NOT NULL,
    "destination_id" INTEGER NOT NULL,
    "model_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "configuration" JSONB NOT NULL DEFAULT '[]',
    "schedule_type" "schedule_type" NOT NULL,
    "sync_mode" "sync_mode" NOT NULL,
    "sync_interval" INTEGER,
    "sync_interval_unit" "sync_interval_unit",
    "cron_expression" TEXT,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "stream_name" TEXT NOT NULL,
    "cursor_field" TEXT,
    "current_cursor_field" TEXT,
    "detect_deletes" BOOLEAN NOT NULL DEFAULT false,
    "status" "sync_status" NOT NULL DEFAULT 'pending',
    "next_run_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "syncs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_runs" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "status" "sync_run_status" NOT NULL DEFAULT 'pending',
    "sync_run_type" "sync_run_type" NOT NULL DEFAULT 'general',
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "total_query_rows" INTEGER NOT NULL DEFAULT 0,
    "total_rows" INTEGER NOT NULL DEFAULT 0,
    "skipped_rows" INTEGER NOT NULL DEFAULT 0,
    "successful_rows" INTEGER NOT NULL DEFAULT 0,
    "failed_rows" INTEGER NOT NULL DEFAULT 0,
    "duplicate_rows" INTEGER NOT NULL DEFAULT 0,
    "processed_rows" INTEGER NOT NULL DEFAULT 0,
    "timings" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sync_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_records" (
    "id" BIGSERIAL NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "sync_run_id" INTEGER NOT NULL,
    "primary_key" TEXT NOT NULL,
    "record" JSONB NOT NULL,
    "status" "sync_record_status" NOT NULL DEFAULT 'pending',
    "action" "sync_record_action" NOT NULL,
    "error" TEXT,
    "logs" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_states" (
    "sync_id" INTEGER NOT NULL,
    "primary_key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "last_status" "sync_record_status" NOT NULL,
    "last_run_id" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_states_pkey" PRIMARY KEY ("sync_id","primary_key")
);

-- CreateTable
CREATE TABLE "audit_logs" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "action" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "roles_role_type_idx" ON "roles"("role_type");

-- CreateIndex
CREATE UNIQUE INDEX "roles_workspace_id_role_name_key" ON "roles"("workspace_id", "role_name");

-- CreateIndex
CREATE INDEX "workspace_users_user_id_idx" ON "workspace_users"("user_id");

-- CreateIndex
CREATE INDEX "workspace_users_role_id_idx" ON "workspace_users"("role_id");

-- CreateIndex
CREATE UNIQUE INDEX "workspace_users_workspace_id_user_id_key" ON "workspace_users"("workspace_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_jti_key" ON "api_tokens"("jti");

-- CreateIndex
CREATE INDEX "api_tokens_workspace_id_created_at_idx" ON "api_tokens"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- CreateIndex
CREATE INDEX "revoked_tokens_expires_at_idx" ON "revoked_tokens"("expires_at");

-- CreateIndex
CREATE INDEX "connectors_workspace_id_updated_at_idx" ON "connectors"("workspace_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "connectors_workspace_id_connector_type_category_idx" ON "connectors"("workspace_id", "connector_type", "category");

-- CreateIndex
CREATE UNIQUE INDEX "connectors_workspace_id_connector_type_name_key" ON "connectors"("workspace_id", "connector_type", "name");

-- CreateIndex
CREATE UNIQUE INDEX "catalogs_connector_id_key" ON "catalogs"("connector_id");

-- CreateIndex
CREATE INDEX "catalogs_workspace_id_idx" ON "catalogs"("workspace_id");

-- CreateIndex
CREATE INDEX "models_workspace_id_updated_at_idx" ON "models"("workspace_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "models_connector_id_idx" ON "models"("connector_id");

-- CreateIndex
CREATE INDEX "syncs_workspace_id_deleted_at_updated_at_idx" ON "syncs"("workspace_id", "deleted_at", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "syncs_next_run_at_idx" ON "syncs"("next_run_at");

-- CreateIndex
CREATE INDEX "syncs_source_id_idx" ON "syncs"("source_id");

-- CreateIndex
CREATE INDEX "syncs_destination_id_idx" ON "syncs"("destination_id");

-- CreateIndex
CREATE INDEX "syncs_model_id_idx" ON "syncs"("model_id");

-- CreateIndex
CREATE INDEX "sync_runs_sync_id_updated_at_idx" ON "sync_runs"("sync_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "sync_runs_sync_id_status_idx" ON "sync_runs"("sync_id", "status");

-- CreateIndex
CREATE INDEX "sync_runs_workspace_id_created_at_idx" ON "sync_runs"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "sync_runs_status_idx" ON "sync_runs"("status");

-- CreateIndex
CREATE INDEX "sync_records_sync_run_id_id_idx" ON "sync_records"("sync_run_id", "id");

-- CreateIndex
CREATE INDEX "sync_records_sync_run_id_status_id_idx" ON "sync_records"("sync_run_id", "status", "id");

-- CreateIndex
CREATE INDEX "sync_records_sync_run_id_action_id_idx" ON "sync_records"("sync_run_id", "action", "id");

-- CreateIndex
CREATE INDEX "sync_records_sync_id_idx" ON "sync_records"("sync_id");

-- CreateIndex
CREATE UNIQUE INDEX "sync_records_sync_run_id_primary_key_key" ON "sync_records"("sync_run_id", "primary_key");

-- CreateIndex
CREATE INDEX "sync_states_sync_id_last_status_idx" ON "sync_states"("sync_id", "last_status");

-- CreateIndex
CREATE INDEX "audit_logs_workspace_id_created_at_idx" ON "audit_logs"("workspace_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_logs_workspace_id_resource_type_resource_id_idx" ON "audit_logs"("workspace_id", "resource_type", "resource_id");

-- AddForeignKey
ALTER TABLE "roles" ADD CONSTRAINT "roles_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_users" ADD CONSTRAINT "workspace_users_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_users" ADD CONSTRAINT "workspace_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_users" ADD CONSTRAINT "workspace_users_role_id_fkey" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_role_id_fkey" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connectors" ADD CONSTRAINT "connectors_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalogs" ADD CONSTRAINT "catalogs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalogs" ADD CONSTRAINT "catalogs_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "syncs" ADD CONSTRAINT "syncs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "syncs" ADD CONSTRAINT "syncs_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "connectors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "syncs" ADD CONSTRAINT "syncs_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "connectors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "syncs" ADD CONSTRAINT "syncs_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_sync_id_fkey" FOREIGN KEY ("sync_id") REFERENCES "syncs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_records" ADD CONSTRAINT "sync_records_sync_id_fkey" FOREIGN KEY ("sync_id") REFERENCES "syncs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_records" ADD CONSTRAINT "sync_records_sync_run_id_fkey" FOREIGN KEY ("sync_run_id") REFERENCES "sync_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_states" ADD CONSTRAINT "sync_states_sync_id_fkey" FOREIGN KEY ("sync_id") REFERENCES "syncs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_logs" ADD CONSTRAINT "audit_logs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_logs" ADD CONSTRAINT "audit_logs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
