-- CreateTable
CREATE TABLE "sync_deliveries" (
    "sync_id" INTEGER NOT NULL,
    "primary_key" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "delivered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_deliveries_pkey" PRIMARY KEY ("sync_id","primary_key")
);

-- No foreign key (a per-row check on a write made after every request); like sync_states, a
-- statement-level trigger deletes a sync's deliveries with the sync, a workspace's cascade included.
CREATE FUNCTION "ds_delete_deliveries_of_syncs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "sync_deliveries" WHERE "sync_id" IN (SELECT "id" FROM "deleted_syncs");
  RETURN NULL;
END
$$;

CREATE TRIGGER "syncs_delete_deliveries" AFTER DELETE ON "syncs"
  REFERENCING OLD TABLE AS "deleted_syncs" FOR EACH STATEMENT EXECUTE FUNCTION "ds_delete_deliveries_of_syncs"();
