-- DropForeignKey
ALTER TABLE "sync_records" DROP CONSTRAINT "sync_records_sync_run_id_fkey";

-- DropForeignKey
ALTER TABLE "sync_states" DROP CONSTRAINT "sync_states_sync_id_fkey";

-- The two foreign keys above cost a per-row check on the hottest writes (half of the bookkeeping's
-- database time). These statement-level triggers keep their cascades: one DELETE per deleting
-- statement, cascaded deletes of syncs and runs (a workspace's) included.
CREATE FUNCTION "ds_delete_states_of_syncs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "sync_states" WHERE "sync_id" IN (SELECT "id" FROM "deleted_syncs");
  RETURN NULL;
END
$$;

CREATE TRIGGER "syncs_delete_states" AFTER DELETE ON "syncs"
  REFERENCING OLD TABLE AS "deleted_syncs" FOR EACH STATEMENT EXECUTE FUNCTION "ds_delete_states_of_syncs"();

CREATE FUNCTION "ds_delete_records_of_runs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "sync_records" WHERE "sync_run_id" IN (SELECT "id" FROM "deleted_runs");
  RETURN NULL;
END
$$;

CREATE TRIGGER "sync_runs_delete_records" AFTER DELETE ON "sync_runs"
  REFERENCING OLD TABLE AS "deleted_runs" FOR EACH STATEMENT EXECUTE FUNCTION "ds_delete_records_of_runs"();
